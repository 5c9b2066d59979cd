package fetch

import (
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

// brokenThenResumed downloads data in pieces from an origin (strong ETag)
// whose 200 carries first as Repr-Digest ("" none) and whose 206s carry
// pieces as Repr-Digest, the piece from 768 KiB on cut short, so the run
// fails with a sidecar saved; then resumes it with -C from the same
// origin, whose 206s now carry no digest. It returns the sidecar the
// first run left and the resumed run's result.
func brokenThenResumed(t *testing.T, data []byte, first, pieces string) ([]byte, *Result, error) {
	t.Helper()
	var run atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			if first != "" {
				w.Header().Set("Repr-Digest", first)
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data)
			return
		}
		a, b := 0, len(data)-1
		fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(b+1-a))
		if run.Load() == 1 {
			w.Header().Set("Repr-Digest", pieces)
			w.WriteHeader(http.StatusPartialContent)
			if a >= 768<<10 {
				w.Write(data[a : a+1000]) // broken
				return
			}
		} else {
			w.WriteHeader(http.StatusPartialContent) // no digest now
		}
		w.Write(data[a : b+1])
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	run.Add(1)
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 2, PieceSize: 256 << 10}); err == nil {
		t.Fatal("first run: want a broken piece")
	}
	sc, _ := os.ReadFile(path + SidecarSuffix)
	run.Add(1)
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
	return sc, res, err
}
