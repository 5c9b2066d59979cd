package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// The resume sidecar is a file on disk (mode 0644): the URL's password
// must not be written into it, and resuming with the same URL still uses
// it.
func TestSidecarKeepsNoPassword(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o.set(func() {
		o.before = func(r *http.Request) bool {
			if rng := r.Header.Get("Range"); rng != "" && !firstPieces(rng) {
				<-r.Context().Done()
				return false
			}
			return true
		}
	})
	c, err := NewClient(Options{Timeout: testStall})
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{URL: strings.Replace(o.srv.URL, "http://", "http://alice:s3cret-pw@", 1) + "/f",
		Policy: verify.DefaultPolicy(), WantRepr: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}}
	opts := pieceOpts
	opts.Progress = &cancelAfter{n: 4, cancel: cancel}
	if _, err := c.Download(ctx, req, path, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	b, err := os.ReadFile(path + SidecarSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("s3cret-pw")) {
		t.Errorf("the sidecar holds the URL's password: %s", b)
	}
	o.set(func() { o.before = nil })
	opts = pieceOpts
	opts.Continue = true
	res, err := c.Download(context.Background(), req, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if res.Received >= int64(len(data)) {
		t.Errorf("received %d of %d bytes: the sidecar was not used", res.Received, len(data))
	}
}
