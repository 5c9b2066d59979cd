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
	"time"

	"github.com/hdig/hdig/verify"
)

// -C of a part whose sidecar names its version by a weak validator only:
// a weak ETag (never an If-Range, RFC 9110 §13.1.5) or a Last-Modified
// that is not strong (less than a second before the answer's Date,
// §8.8.2.2). An origin may keep either while the bytes change, so a 206
// stating the same one is no proof of the part's version: with no digest
// to prove the whole, the part is not spliced, the file fetched again.
func TestResumeWeakValidatorNotSpliced(t *testing.T) {
	t1 := time.Unix(1_000_000_000, 0).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		header http.Header // of every answer
	}{
		{"weak ETag kept", http.Header{"Etag": {`W/"x"`}}},
		{"Last-Modified not strong kept", http.Header{"Last-Modified": {t1}, "Date": {t1}}},
		{"weak ETag and Last-Modified kept", http.Header{"Etag": {`W/"x"`}, "Last-Modified": {t1}, "Date": {t1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v1, v2 := genData(1<<20, 1), genData(1<<20, 2)
			var mu sync.Mutex
			data := v1
			var broken atomic.Bool
			var gets atomic.Int32
			var ifRange []string
			broken.Store(true)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				d := data
				mu.Unlock()
				for k, v := range tc.header {
					w.Header()[k] = v
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
				mu.Lock()
				ifRange = append(ifRange, r.Header.Get("If-Range"))
				mu.Unlock()
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
			mu.Lock()
			data = v2 // the same length, the same weak validator
			mu.Unlock()
			res, err := c.Download(context.Background(), req, path, opts)
			got, _ := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, v2) || gets.Load() != 2 {
				t.Errorf("resume: %v (outcome %v, warnings %q, %d full GETs, want 2); FILE the origin's current file: %v",
					err, res.Outcome(), res.Verdict.Warnings, gets.Load(), bytes.Equal(got, v2))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(ifRange) != 1 || ifRange[0] != "" {
				t.Errorf("If-Range of the range requests %q, want one, empty", ifRange)
			}
		})
	}
}
