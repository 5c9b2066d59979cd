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
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// -C of a part whose origin names its versions by a weak ETag alone (no
// strong one, no Last-Modified, no digest): the resume cannot send it as
// If-Range (RFC 9110 §13.1.5), so a file changed to one of the same
// length was spliced with the part, released "unverified". The weak ETag
// is recorded; a 206 with another one, or none, is another version
// (versionDiffers): fetched again in full. The same tag is no proof of
// the version either (a weak tag may stay while the bytes change): with
// no digest, the file is fetched again (TestResumeWeakValidatorNotSpliced).
func TestResumeWeakETagNoSplice(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tag     string // the 206's ETag after the first run
		changed bool
		gets    int32
	}{
		{"unchanged", `W/"v1"`, false, 2},
		{"changed", `W/"v2"`, true, 2},
		{"changed, no ETag in the 206", "", true, 2},
		// A 206 with a strong ETag is held to the weak one recorded by
		// weak comparison (RFC 9110 §8.8.3.2), not taken as the version's
		// name: another opaque tag is another version.
		{"unchanged, the strong ETag in the 206", `"v1"`, false, 2},
		{"changed, a strong ETag in the 206", `"v2"`, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v1, v2 := genData(1<<20, 1), genData(1<<20, 2)
			var mu sync.Mutex
			data, tag := v1, `W/"v1"`
			var broken atomic.Bool
			var gets atomic.Int32
			broken.Store(true)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				d, et := data, tag
				mu.Unlock()
				if et != "" {
					w.Header().Set("ETag", et)
				}
				w.Header().Set("Accept-Ranges", "bytes")
				var a int
				if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err != nil {
					gets.Add(1)
					w.Header().Set("Content-Length", strconv.Itoa(len(d)))
					if broken.CompareAndSwap(true, false) {
						w.Write(d[:len(d)/2]) // the connection breaks half way
						return
					}
					w.Write(d)
					return
				}
				w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(d)-1, len(d)))
				w.Header().Set("Content-Length", strconv.Itoa(len(d)-a))
				w.WriteHeader(http.StatusPartialContent)
				w.Write(d[a:])
			}))
			defer srv.Close()
			path := filepath.Join(t.TempDir(), "f")
			c, _ := NewClient(Options{Timeout: testStall})
			req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
			opts := DownloadOptions{Continue: true, Parallel: 1}
			if _, err := c.Download(context.Background(), req, path, opts); err == nil {
				t.Fatal("first run: want a broken body")
			}
			want := v1
			mu.Lock()
			tag = tc.tag
			if tc.changed {
				data, want = v2, v2
			}
			mu.Unlock()
			res, err := c.Download(context.Background(), req, path, opts)
			got, _ := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) || gets.Load() != tc.gets {
				t.Errorf("resume: %v (warnings %q, %d full GETs, want %d); FILE the origin's current file: %v",
					err, res.Verdict.Warnings, gets.Load(), tc.gets, bytes.Equal(got, want))
			}
		})
	}
}
