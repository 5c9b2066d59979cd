package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/verify"
)

// tamperOnWrite is -N's output: on its first write it changes the last
// byte of the file at path (the cached blob being copied out), as a
// process editing the file between the cache's check and the copy would.
type tamperOnWrite struct {
	path string
	out  bytes.Buffer
	done bool
}

func (w *tamperOnWrite) Write(p []byte) (int, error) {
	if !w.done {
		w.done = true
		f, err := os.OpenFile(w.path, os.O_WRONLY, 0)
		if err != nil {
			return 0, err
		}
		fi, _ := f.Stat()
		f.WriteAt([]byte{'!'}, fi.Size()-1)
		f.Close()
	}
	return w.out.Write(p)
}

// A 304 streamed to a sink that cannot take bytes back (-N) gets the
// cached version checked first (cache.Open), then read again for the
// copy: the copy's sha-256, computed anyway, was not held to the
// version's, so bytes changed between the check and the copy were
// released as the cached version, exit 0, when the 304 sent no
// Repr-Digest. They cannot be taken back, but the run must fail.
func TestNotModifiedStreamCopyChecked(t *testing.T) {
	v1 := genData(1280<<10, 7) // past the copy's two 512 KiB slots: read after the first write
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(v1)
	}))
	defer srv.Close()
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e, err := store.Put(cache.Entry{URL: srv.URL, ETag: `"v1"`}, bytes.NewReader(v1))
	if err != nil {
		t.Fatal(err)
	}
	out := &tamperOnWrite{path: filepath.Join(store.Dir, "blobs", e.SHA256[:2], e.SHA256)}
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store}}
	res, err := c.Get(context.Background(), req, &StreamSink{Out: out})
	if !out.done {
		t.Fatal("nothing was written")
	}
	if err == nil {
		t.Errorf("no error (%s %d %s, %d bytes, last %q); want the copy held to the version's sha-256", res.Strategy, res.Status, res.Outcome(), out.out.Len(), out.out.Bytes()[out.out.Len()-1:])
	}
}
