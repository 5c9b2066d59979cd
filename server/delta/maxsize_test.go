package delta

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/server"
)

// TestDeltaCurrentOverMaxSize: a file larger than maxSize gets no deltas
// (New), also when an earlier, smaller version of it was kept: the delta
// step neither encodes it (however the client asks: identity;q=0, the
// inflated coding) nor answers 226, and the server sends the file.
func TestDeltaCurrentOverMaxSize(t *testing.T) {
	small, big := text(200, 1), text(3000, 2) // about 6 KiB and 100 KiB
	dir := t.TempDir()
	h, err := New(filepath.Join(t.TempDir(), "state"), DefaultHistory, 32<<10, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(dir, server.WithDelta(h))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close(); h.Close() })
	o := &origin{t: t, h: h, dir: dir, url: ts.URL + "/a.txt", file: filepath.Join(dir, "a.txt")}
	var encodes atomic.Int64
	encodeHook = func(context.Context) { encodes.Add(1) }
	t.Cleanup(func() { encodeHook = nil })

	e1 := o.putETag(small)
	h.Wait()
	if err := os.WriteFile(o.file, big, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, aim := range []string{"vcdiff", "vcdiff, identity;q=0", "hdig-vcdiff-inflated, gdiff, diffe"} {
		resp, body := o.get(map[string]string{"A-IM": aim, "If-None-Match": e1})
		h.Wait()
		if resp.StatusCode == http.StatusIMUsed {
			t.Errorf("A-IM %s from a kept %d-byte version to a %d-byte file over maxSize (32 KiB): 226", aim, len(small), len(big))
		}
		if resp.StatusCode == http.StatusOK && len(body) != len(big) {
			t.Errorf("A-IM %s: 200 of %d bytes, want the file's %d", aim, len(body), len(big))
		}
	}
	if n := encodes.Load(); n != 0 {
		t.Errorf("%d deltas encoded to a file over maxSize, want none", n)
	}
}
