package delta

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/patch"
)

// Close stops a delta being made in the background: the encode sees its
// context done, nothing is stored (no delta, no temporary file), and no
// later request starts another.
func TestCloseStopsBackgroundEncode(t *testing.T) {
	o, v2, e1 := slowEncodeOrigin(t)
	bg := blockInBackground(t, &encodeHook)
	resp, body := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1})
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, v2) {
		t.Fatalf("status %d, %d bytes; want 200 with the file", resp.StatusCode, len(body))
	}
	bg.closeWhileBlocked(t, o.h)
	if got := deltaFiles(t, o.h); len(got) != 0 {
		t.Errorf("after Close the deltas directory holds %q, want nothing", got)
	}
	o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1})
	o.h.Wait()
	if n := bg.calls.Load(); n != 1 {
		t.Errorf("%d background encodes started, want 1 (none after Close)", n)
	}
}

// Close stops a coding of a delta being made in the background: only the
// delta sent on the request path is kept.
func TestCloseStopsBackgroundCoding(t *testing.T) {
	rnd := rand.New(rand.NewSource(5))
	v1 := make([]byte, 256<<10)
	rnd.Read(v1)
	extra := make([]byte, 48<<10) // a delta over codeOnPathMax: coded in the background
	for i := range extra {
		extra[i] = "0123456789abcdef"[rnd.Intn(16)]
	}
	o := newOrigin(t, DefaultHistory)
	e1 := o.putETag(v1)
	o.put(append(bytes.Clone(v1), extra...))
	bg := blockInBackground(t, &codeHook)
	resp, _ := o.get(map[string]string{"A-IM": "vcdiff, zstd, br", "If-None-Match": e1})
	if resp.StatusCode != http.StatusIMUsed || resp.Header.Get("IM") != "vcdiff" {
		t.Fatalf("status %d IM %q, want 226 with the vcdiff as it is", resp.StatusCode, resp.Header.Get("IM"))
	}
	bg.closeWhileBlocked(t, o.h)
	got := deltaFiles(t, o.h)
	if len(got) != 1 || !strings.HasSuffix(got[0], ".vcdiff") || strings.HasPrefix(got[0], ".") {
		t.Errorf("after Close the deltas directory holds %q, want the vcdiff delta only", got)
	}
	if n := bg.calls.Load(); n != 1 {
		t.Errorf("%d background codings started, want 1 (the first, stopped)", n)
	}
}

// blocked is a background job held in a test hook until its context is
// done (the Handler closed) or release is closed.
type blocked struct {
	started   chan struct{}
	release   chan struct{}
	cancelled atomic.Bool
	calls     atomic.Int32
}

// blockInBackground sets *hook, until the test ends, to hold every job
// made in the background.
func blockInBackground(t *testing.T, hook *func(context.Context)) *blocked {
	b := &blocked{started: make(chan struct{}, 8), release: make(chan struct{})}
	*hook = func(ctx context.Context) {
		if !inBackground(ctx) {
			return
		}
		b.calls.Add(1)
		b.started <- struct{}{}
		select {
		case <-ctx.Done():
			b.cancelled.Store(true)
		case <-b.release:
		}
	}
	t.Cleanup(func() { *hook = nil })
	return b
}

// closeWhileBlocked waits for the job to start, closes h, and checks that
// the job saw Close; then it lets any job still held go.
func (b *blocked) closeWhileBlocked(t *testing.T, h *Handler) {
	t.Helper()
	<-b.started
	h.Close()
	if !b.cancelled.Load() {
		t.Error("Close returned while the background job went on: its context was not done")
	}
	close(b.release)
	h.Wait()
}

// deltaFiles lists the deltas directory.
func deltaFiles(t *testing.T, h *Handler) []string {
	t.Helper()
	return namesIn(t, filepath.Join(h.dir, "deltas"))
}

// namesIn lists the names in dir.
func namesIn(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A coding made on the request path for a client that went away stops
// (its reads see the request's context done) and is no failure: nothing
// is logged, and the delta is sent as it is.
func TestCodingForGoneClientNotWarned(t *testing.T) {
	var logged bytes.Buffer
	h, err := New(t.TempDir(), DefaultHistory, 0, slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.dir, "deltas", "d.vcdiff")
	if err := os.WriteFile(path, bytes.Repeat([]byte("a delta "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	d := &made{path: path, size: 8000, ims: []string{"vcdiff"}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	aim := patch.ParseAIM([]string{"vcdiff, zstd, br"})
	if got := h.smallestCoding(ctx, aim, d); got != d {
		t.Errorf("sent %s, want the delta as it is", got.path)
	}
	if logged.Len() > 0 {
		t.Errorf("logged %q for a client that went away", logged.String())
	}
}
