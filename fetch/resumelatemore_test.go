package fetch

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestResumeSavedLateMore: the pieces' Repr-Digest members of an
// algorithm no earlier answer carried (download.lateMore) cover the whole
// as the first answer's do, but the sidecar did not record them: after
// -C, with an origin no longer sending them, they were not checked.
func TestResumeSavedLateMore(t *testing.T) {
	data := genData(1<<20, 1)
	sum := sha512.Sum512(data)
	both := sha256Field(data) + ", sha-512=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	for name, first := range map[string]string{
		"the 200's sha-256":    sha256Field(data),
		"no digest on the 200": "",
	} {
		t.Run(name, func(t *testing.T) {
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
					w.Header().Set("Repr-Digest", both)
					w.WriteHeader(206)
					if a >= 768<<10 {
						w.Write(data[a : a+1000]) // broken
						return
					}
				} else {
					w.WriteHeader(206) // no digest now
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
			checked := slices.ContainsFunc(res.Verdict.Checks, func(c verify.Check) bool { return c.Algorithm == "sha-512" && c.Result == verify.Match })
			if err != nil || !checked {
				t.Errorf("resumed run: %v (checks %v); want the pieces' sha-512 checked as recorded (sidecar %s)", err, res.Verdict.Checks, sc)
			}
		})
	}
}
