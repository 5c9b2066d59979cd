package delta

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/server"
)

// capture wraps a Handler to keep the Representation the server passes.
type capture struct {
	*Handler
	cur atomic.Pointer[server.Representation]
}

func (c *capture) ServeDelta(w http.ResponseWriter, r *http.Request, cur *server.Representation, rival int64) (bool, error) {
	c.cur.Store(cur)
	return c.Handler.ServeDelta(w, r, cur, rival)
}

// Close and a job being started are ordered (goBackground): once Close
// has returned, encodeLater called over and over starts no job (found by a
// second review: a job could be added to the WaitGroup after Close's Wait).
func TestCloseStartsNoJobAfter(t *testing.T) {
	dir := t.TempDir()
	h, err := New(filepath.Join(t.TempDir(), "state"), DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &capture{Handler: h}
	srv, err := server.New(dir, server.WithDelta(c))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer func() { ts.Close(); srv.Close() }()
	o := &origin{t: t, h: h, dir: dir, url: ts.URL + "/a.txt", file: filepath.Join(dir, "a.txt")}
	e1 := o.putETag(text(3000, 1))
	o.put(text(3000, 2))
	o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1})
	h.Wait()
	cur := c.cur.Load()
	base, ok := h.find(cur.File, []string{e1})
	if cur == nil || !ok {
		t.Fatal("no representation captured / no base")
	}
	var jobs atomic.Int32
	encodeHook = func(ctx context.Context) {
		if inBackground(ctx) {
			jobs.Add(1)
		}
	}
	defer func() { encodeHook = nil }()
	codings := []patch.Manipulation{{Name: "vcdiff", Q: 1}}
	var calls atomic.Int32
	closed := make(chan int32)
	done := make(chan struct{})
	go func() {
		defer close(done)
		after := int32(-1)
		for after < 0 || calls.Load() < after+200 {
			h.encodeLater(cur, base, codings, codings)
			calls.Add(1)
			select {
			case n := <-closed:
				after = calls.Load()
				closed <- n
			default:
			}
		}
	}()
	for calls.Load() < 50 {
		runtime.Gosched()
	}
	h.Close()
	atClose := jobs.Load()
	closed <- atClose
	<-closed
	<-done
	h.Wait()
	if n := jobs.Load(); n != atClose || h.bgBusy.Load() {
		t.Errorf("%d background jobs started after Close returned (busy %v), want none", n-atClose, h.bgBusy.Load())
	}
}

// After Close nothing is recorded either: a request served after it (a
// straggler past hdig serve's shutdown grace) would copy a version into a
// state directory hdig serve has just removed (found by a second review).
func TestCloseStopsRecording(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	o.putETag(text(3000, 1))
	o.h.Wait()
	o.h.Close()
	blobs := filepath.Join(o.h.dir, "blobs")
	before := len(namesIn(t, blobs))
	os.RemoveAll(o.h.dir) // hdig serve's cleanup, right after Close
	o.put(text(3000, 2))
	o.get(nil)
	o.h.Wait()
	if _, err := os.Stat(blobs); err == nil {
		t.Errorf("after Close and the state dir's removal, a request recorded a version again: %q recreated (%d blobs before; now %q)", blobs, before, namesIn(t, blobs))
	}
}
