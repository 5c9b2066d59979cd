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

// A Repr-Digest that is not a valid Dictionary proves nothing (verify
// salvage), on a piece's 206 as on a 200. A sidecar saved while the only
// Repr-Digest was such a piece's (download.late) recorded its members as
// a clean field, and the next -C counted a match with them as proof:
// "verified" where the same field makes a whole 200 "unverified".
func TestResumeSavedLateSalvagedProvesNothing(t *testing.T) {
	data := genData(1<<20, 1)
	var run atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data) // no digest
			return
		}
		a, b := 0, len(data)-1
		fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(b+1-a))
		if run.Load() == 1 {
			w.Header().Set("Repr-Digest", sha256Field(data)+", =bad") // salvaged
			w.WriteHeader(206)
			if a >= 768<<10 {
				w.Write(data[a : a+1000]) // broken
				return
			}
		} else {
			w.WriteHeader(206)
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
	if err != nil || res.Outcome() == verify.Verified {
		t.Errorf("resumed run: %v (outcome %s, checks %v); want unverified: the sidecar's sha-256 came from a malformed field (sidecar %s)", err, res.Outcome(), res.Verdict.Checks, sc)
	}
}
