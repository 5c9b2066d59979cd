package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// chunkedOrigin serves data with a strong ETag and no length: a chunked
// 200 carrying field: value, broken half way until whole is set, and to a
// range request a 206 from the range's start with no digest.
type chunkedOrigin struct {
	srv   *httptest.Server
	gets  atomic.Int32
	whole atomic.Bool
}

func newChunkedOrigin(t *testing.T, data []byte, field, value string) *chunkedOrigin {
	o := &chunkedOrigin{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		var a int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err == nil {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)-a))
			w.WriteHeader(206)
			w.Write(data[a:])
			return
		}
		w.Header().Set(field, value)
		o.gets.Add(1)
		if o.whole.Load() {
			w.Write(data)
			return
		}
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection breaks half way
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// -C of a part whose first 200 had a strong ETag but no length (chunked):
// the Repr-Digest or Content-Digest its sidecar recorded proves the
// resumed whole, as on the path with a length. Before, the length path
// used none of the sidecar's proof: a part damaged on disk was resumed,
// and with a resume answer carrying no digest released as "unverified".
func TestResumeChunkedKeepsSavedProof(t *testing.T) {
	data := genData(1<<20, 1)
	for _, field := range []string{"Repr-Digest", "Content-Digest"} {
		t.Run(field, func(t *testing.T) {
			o := newChunkedOrigin(t, data, field, sha256Field(data))
			path := filepath.Join(t.TempDir(), "f")
			c, _ := NewClient(Options{Timeout: testStall})
			req := &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy()}
			opts := DownloadOptions{Continue: true, Parallel: 1}
			if _, err := c.Download(context.Background(), req, path, opts); err == nil {
				t.Fatal("first run: want a broken body")
			}
			if b, err := os.ReadFile(path + SidecarSuffix); err != nil || !strings.Contains(string(b), `"total":-1`) {
				t.Fatalf("sidecar after the broken first run: %s, %v", b, err)
			}
			f, _ := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
			f.WriteAt([]byte("garbage"), 1000)
			f.Close()
			o.whole.Store(true)
			res, err := c.Download(context.Background(), req, path, opts)
			got, _ := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, data) || o.gets.Load() != 2 || res.Outcome() != verify.Verified {
				t.Errorf("resume: %v (outcome %s, warnings %q, %d full GETs); want the damaged part found wrong by the recorded %s and the file fetched again in full (FILE is the origin's: %v)",
					err, res.Outcome(), res.Verdict.Warnings, o.gets.Load(), field, bytes.Equal(got, data))
			}
		})
	}
}

// -C on the length path keeps only the prefix the sidecar's spans vouch
// for: bytes of the part beyond them (written after the sidecar was last
// saved, or by someone else) are fetched again, as resumePieces fetches
// what its spans do not cover, never kept unhashed and unproved.
func TestResumeChunkedKeepsOnlySidecarSpans(t *testing.T) {
	data := genData(1<<20, 1)
	o := newChunkedOrigin(t, data, "X-No-Digest", "1")
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy()}
	opts := DownloadOptions{Continue: true, Parallel: 1}
	if _, err := c.Download(context.Background(), req, path, opts); err == nil {
		t.Fatal("first run: want a broken body")
	}
	b, _ := os.ReadFile(path + SidecarSuffix)
	var sc sidecar
	if err := json.Unmarshal(b, &sc); err != nil || len(sc.Done) != 1 {
		t.Fatalf("sidecar %s: %v", b, err)
	}
	sc.Done[0][1], sc.Hashed = 1000, 0
	b, _ = json.Marshal(sc)
	os.WriteFile(path+SidecarSuffix, b, 0o644)
	f, _ := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
	f.WriteAt([]byte("garbage"), 2000)
	f.Close()
	o.whole.Store(true)
	res, err := c.Download(context.Background(), req, path, opts)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("resume: %v (warnings %q); want bytes beyond the sidecar's spans fetched again (FILE is the origin's: %v)", err, res.Verdict.Warnings, bytes.Equal(got, data))
	}
}
