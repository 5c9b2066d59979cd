package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// -C against an origin that sends Repr-Digest in the trailer only: the
// resume answer's trailer proves (or disproves) the resumed whole as a
// whole 200's does; a part gone bad is found and the file fetched again in
// full, never "unverified" exit 0 (found by review: a piece's trailer was
// read for Content-Digest only).
func TestResumeTrailerReprDigest(t *testing.T) {
	data := genData(1<<20, 1)
	field := sha256Field(data)
	var whole atomic.Bool
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Trailer", "Repr-Digest")
		a := 0
		status := 200
		if rg := r.Header.Get("Range"); rg != "" {
			fmt.Sscanf(rg, "bytes=%d-", &a)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
			status = 206
		} else {
			gets.Add(1)
		}
		w.WriteHeader(status)
		if status == 200 && !whole.Load() {
			w.Write(data[:len(data)/2])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection breaks half way
		}
		w.Write(data[a:])
		w.Header().Set("Repr-Digest", field)
	}))
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
	part[0] ^= 0xff // the part goes bad on disk
	os.WriteFile(path+PartSuffix, part, 0o644)
	whole.Store(true)
	gets.Store(0)
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || res.Outcome() != verify.Verified || gets.Load() != 1 {
		t.Errorf("resume: %v, outcome %s, %d GETs, FILE is the origin's: %v, warnings %q; want the bad part found by the trailer's Repr-Digest and the file fetched again in full, verified",
			err, res.Outcome(), gets.Load(), bytes.Equal(got, data), res.Verdict.Warnings)
	}
}
