package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// halfwayOrigin serves data with the Repr-Digest repr, in the header or
// (trailer) in the trailer, with Content-Length unless trailer: a GET without Range breaks half way until
// whole is set, "Range: bytes=N-" gets a 206 of the rest. gets counts the
// GETs without Range.
type halfwayOrigin struct {
	data    []byte
	repr    string
	trailer bool
	whole   atomic.Bool
	gets    atomic.Int32
}

func (o *halfwayOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("ETag", `"v1"`)
	h.Set("Accept-Ranges", "bytes")
	if o.trailer {
		h.Set("Trailer", "Repr-Digest")
	} else {
		h.Set("Repr-Digest", o.repr)
	}
	a, status := 0, 200
	if rg := r.Header.Get("Range"); rg != "" {
		fmt.Sscanf(rg, "bytes=%d-", &a)
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(o.data)-1, len(o.data)))
		status = 206
	} else {
		o.gets.Add(1)
	}
	if !o.trailer {
		h.Set("Content-Length", strconv.Itoa(len(o.data)-a))
	}
	w.WriteHeader(status)
	if status == 200 && !o.whole.Load() {
		w.Write(o.data[:len(o.data)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection breaks half way
	}
	w.Write(o.data[a:])
	if o.trailer {
		h.Set("Repr-Digest", o.repr)
	}
}

// resumeDamaged breaks a -C download from o half way, lets tamper edit
// the sidecar (nil: none), damages the part's first byte and resumes: the
// bad byte must be found, the file fetched again in full and verified.
func resumeDamaged(t *testing.T, o *halfwayOrigin, tamper func(side, url string, partSize int64), why string) {
	t.Helper()
	srv := httptest.NewServer(o)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1}); err == nil {
		t.Fatal("first run: want a truncated body")
	}
	part, _ := os.ReadFile(path + PartSuffix)
	if len(part) == 0 {
		t.Fatal("no part after the first run")
	}
	if tamper != nil {
		tamper(path+SidecarSuffix, srv.URL, int64(len(part)))
	}
	part[0] ^= 0xff // the part goes bad on disk
	os.WriteFile(path+PartSuffix, part, 0o644)
	o.whole.Store(true)
	o.gets.Store(0)
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, o.data) || res.Outcome() != verify.Verified || o.gets.Load() != 1 {
		t.Errorf("resume: %v, outcome %s, %d GETs, FILE is the origin's: %v, warnings %q; want the bad part found by %s and the file fetched again in full, verified",
			err, res.Outcome(), o.gets.Load(), bytes.Equal(got, o.data), res.Verdict.Warnings, why)
	}
}

// -C against an origin that sends Repr-Digest in the trailer only: the
// resume answer's trailer proves (or disproves) the resumed whole as a
// whole 200's does; a part gone bad is found and the file fetched again in
// full, never "unverified" exit 0 (found by review: a piece's trailer was
// read for Content-Digest only).
func TestResumeTrailerReprDigest(t *testing.T) {
	data := genData(1<<20, 1)
	resumeDamaged(t, &halfwayOrigin{data: data, repr: sha256Field(data), trailer: true}, nil, "the trailer's Repr-Digest")
}
