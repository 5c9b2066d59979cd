package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
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

// The Repr-Digest a sidecar records is every member the answers of the
// part's version carried, the first's included: before, it was the last
// answer's only. Here the first 200 sends sha-256, the resume answer of a
// second interrupted run only an algorithm hdig does not know, and the
// third run's answer none: the sha-256 was lost with the second sidecar,
// and a part damaged on disk was released as unverified (exit 0).
func TestResumeSidecarKeepsFirstReprDigest(t *testing.T) {
	data := genData(1<<20, 1)
	sum := sha256.Sum256(data)
	var run, gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		var a int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err != nil {
			gets.Add(1)
			w.Header().Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			if run.Load() == 1 {
				w.Write(data[:len(data)/2]) // the connection breaks half way
				return
			}
			w.Write(data)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)-a))
		if run.Load() == 2 {
			w.Header().Set("Repr-Digest", "x-unknown=:AAAA:")
			w.WriteHeader(206)
			w.Write(data[a : a+1000]) // broken again
			return
		}
		w.WriteHeader(206)
		w.Write(data[a:])
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	opts := DownloadOptions{Continue: true, Parallel: 1}
	for range 2 {
		run.Add(1)
		if _, err := c.Download(context.Background(), req, path, opts); err == nil {
			t.Fatalf("run %d: want a broken body", run.Load())
		}
	}
	f, _ := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
	f.WriteAt([]byte("garbage"), 1000)
	f.Close()
	run.Add(1)
	gets.Store(0)
	res, err := c.Download(context.Background(), req, path, opts)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || gets.Load() != 1 {
		t.Errorf("third run: %v (outcome %s, warnings %q, %d full GETs); want the damaged part found wrong by the first answer's recorded sha-256 and the file fetched again in full (FILE is the origin's: %v)",
			err, res.Outcome(), res.Verdict.Warnings, gets.Load(), bytes.Equal(got, data))
	}
}
