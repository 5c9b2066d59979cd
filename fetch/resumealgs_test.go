package fetch

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// -C: a resume answer's Repr-Digest whose algorithm the part is not
// hashed with (the sidecar, untrusted on disk, lists only crc32c) is
// computed all the same, over the finished file: wrong bytes in the part
// are found, and the file fetched again in full, never "unverified" exit 0
// with an accepted digest present (found by review).
func TestResumeComputesAnswerAlgorithm(t *testing.T) {
	data := genData(1<<20, 1)
	s := sha512.Sum512(data)
	o := &halfwayOrigin{data: data, repr: "sha-512=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"}
	// The sidecar names an algorithm of no weight and no Repr-Digest.
	tamper := func(side, url string, partSize int64) {
		sc, why := loadSidecar(side, url, "", partSize)
		if sc == nil {
			t.Fatalf("sidecar: %s", why)
		}
		sc.Algorithms, sc.ReprDigest = []string{"crc32c"}, ""
		b, _ := json.Marshal(sc)
		os.WriteFile(side, b, 0o644)
	}
	resumeDamaged(t, o, tamper, "the answer's sha-512 Repr-Digest")
}

// A resume that meets another version (a 200 to If-Range) and breaks
// again saves the new version's sidecar without the old version's
// Repr-Digest: the next -C would hold it against the new bytes (found by
// review).
func TestResumeNewVersionDropsSavedRepr(t *testing.T) {
	v1, v2 := genData(1<<20, 1), genData(1<<20, 2)
	var version atomic.Int32
	version.Store(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, etag := v1, `"v1"`
		if version.Load() == 2 {
			data, etag = v2, `"v2"`
			w.Header().Set("Content-Digest", sha256Field(v2)) // no Repr-Digest
		} else {
			w.Header().Set("Repr-Digest", sha256Field(v1))
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Accept-Ranges", "bytes")
		if r.Header.Get("Range") != "" && r.Header.Get("If-Range") == etag {
			t.Errorf("unexpected range request %q", r.Header.Get("Range"))
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(200)
		w.Write(data[:len(data)/2]) // the connection breaks half way
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	for v := int32(1); v <= 2; v++ {
		version.Store(v)
		if _, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1}); err == nil {
			t.Fatalf("run %d: want a truncated body", v)
		}
	}
	sc, why := loadSidecar(path+SidecarSuffix, srv.URL, "", int64(len(v2)/2))
	if sc == nil || sc.ETag != `"v2"` || sc.ReprDigest != "" {
		t.Errorf("sidecar after the new version broke: %+v (%s); want ETag \"v2\" and no Repr-Digest (v2 sent none)", sc, why)
	}
}

// -C with --retry: a failed first resume request (a 503 without an ETag)
// does not cost the pieces their If-Range: every range request of the
// resume names the sidecar's ETag, so another version's bytes cannot be
// spliced in (found by review: the retry adopted the 503's missing ETag).
func TestResumeRetryKeepsIfRange(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	var failed atomic.Bool
	var mu sync.Mutex
	var ifRange []string
	o.set(func() {
		o.before = func(r *http.Request) bool {
			if r.Header.Get("Range") != "" {
				mu.Lock()
				ifRange = append(ifRange, r.Header.Get("If-Range"))
				mu.Unlock()
			}
			return true
		}
		o.tamper = func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
			if r.Header.Get("Range") != "" && failed.CompareAndSwap(false, true) {
				h.Del("ETag")
				h.Del("Content-Range")
				return http.StatusServiceUnavailable, nil
			}
			return s, b
		}
	})
	opts := pieceOpts
	opts.Continue = true
	res, err := o.get(t, context.Background(), path, opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	mu.Lock()
	defer mu.Unlock()
	if len(ifRange) < 3 {
		t.Fatalf("%d range requests, want the 503, its retry and more pieces", len(ifRange))
	}
	for i, v := range ifRange {
		if v != `"v1"` {
			t.Errorf("range request %d of %d: If-Range %q, want \"v1\" (outcome %s)", i+1, len(ifRange), v, res.Outcome())
		}
	}
}

// -C whose first request fails (a 503 without an ETag, no retry) keeps the
// part's sidecar ETag: the next -C still resumes with If-Range rather than
// trusting whatever the origin serves then.
func TestResumeFailureKeepsSidecarETag(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	o.set(func() {
		o.tamper = func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
			h.Del("ETag")
			h.Del("Content-Range")
			return http.StatusServiceUnavailable, nil
		}
	})
	opts := pieceOpts
	opts.Continue = true
	if _, err := o.get(t, context.Background(), path, opts, 0); err == nil {
		t.Fatal("want the 503 to fail the resume")
	}
	st, _ := os.Stat(path + PartSuffix)
	if st == nil {
		t.Fatal("the part was not kept")
	}
	sc, why := loadSidecar(path+SidecarSuffix, o.srv.URL+"/f", "", st.Size())
	if sc == nil || sc.ETag != `"v1"` {
		t.Errorf("sidecar after a failed resume: %+v (%s); want ETag \"v1\" kept", sc, why)
	}
}
