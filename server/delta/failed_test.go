package delta

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// TestFailedDeltaNotRetried: a delta-coding that cannot express the
// change (diff -e, for a target without a final newline or with NUL
// bytes) fails only after reading both versions into memory. Any client
// can ask for it again and again: the failure is remembered, so repeated
// requests make one encode, not one each.
func TestFailedDeltaNotRetried(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	base := o.putETag(text(500, 1))
	o.putETag(append(text(500, 2), "no final newline"...))
	var encodes atomic.Int64
	encodeHook = func(context.Context) { encodes.Add(1) }
	t.Cleanup(func() { encodeHook = nil })
	for range 5 {
		resp, _ := o.get(map[string]string{"A-IM": "diffe", "If-None-Match": base})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, want 200 (no delta-coding applies)", resp.StatusCode)
		}
	}
	refused := map[string]string{"A-IM": "diffe, identity;q=0", "If-None-Match": base}
	if resp, _ := o.get(refused); resp.StatusCode != http.StatusNotAcceptable {
		t.Fatalf("identity refused: status %d, want 406", resp.StatusCode)
	}
	if n := encodes.Load(); n != 1 {
		t.Errorf("%d diffe encodes for 6 requests of one failed delta, want 1", n)
	}
}

// A delta whose encode failed because the file was rewritten while it was
// read (here with a NUL byte, which diffe cannot carry) is not remembered
// as impossible for the version named: once the file is that version
// again, its delta is made (found by the reread).
func TestFailedDeltaOfChangedFileNotRemembered(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	base := o.putETag(text(500, 1))
	good := text(500, 2)
	o.putETag(good)
	bad := bytes.Clone(good)
	bad[10] = 0
	var once atomic.Bool
	encodeHook = func(context.Context) {
		if once.CompareAndSwap(false, true) {
			o.put(bad) // rewritten in place while its delta is made
		}
	}
	t.Cleanup(func() { encodeHook = nil })
	req, _ := http.NewRequest("GET", o.url, nil)
	req.Header.Set("A-IM", "diffe")
	req.Header.Set("If-None-Match", base)
	if resp, err := http.DefaultClient.Do(req); err == nil { // the body it streams changes under it
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	o.put(good)
	if resp, _ := o.get(map[string]string{"A-IM": "diffe", "If-None-Match": base}); resp.StatusCode != http.StatusIMUsed {
		t.Errorf("the file back at the version named: status %d, want 226", resp.StatusCode)
	}
}
