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
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// -C: the Repr-Digest the sidecar recorded still proves the resumed whole
// when the resume answer (same ETag) leaves it out: wrong bytes are found
// and the file fetched again in full, never "unverified" (found by review:
// only the resume 206's fields were compared).
func TestResumeKeepsSavedReprDigest(t *testing.T) {
	data := genData(1<<20, 1)
	var gets atomic.Int32
	var whole atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set("Repr-Digest", sha256Field(data))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(200)
			gets.Add(1)
			if whole.Load() {
				w.Write(data)
			} else {
				w.Write(data[:len(data)/2]) // the connection breaks half way
			}
			return
		}
		var a int
		fmt.Sscanf(rg, "bytes=%d-", &a)
		part := append([]byte{}, data[a:]...)
		part[len(part)-1] ^= 0xff // wrong bytes; no Repr-Digest this time
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(part)))
		w.WriteHeader(206)
		w.Write(part)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("precious"), 0o644)
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1}); err == nil {
		t.Fatal("first run: want a truncated body")
	}
	if _, err := os.Stat(path + SidecarSuffix); err != nil {
		t.Fatalf("no sidecar after the broken first run: %v", err)
	}
	whole.Store(true)
	gets.Store(0)
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "did not match Repr-Digest") || gets.Load() != 1 {
		t.Errorf("resume: %v (outcome %s, warnings %q, %d GETs); want the resumed bytes checked against the recorded Repr-Digest, found wrong and fetched again in full; FILE is the origin's: %v",
			err, res.Outcome(), res.Verdict.Warnings, gets.Load(), bytes.Equal(got, data))
	}
}
