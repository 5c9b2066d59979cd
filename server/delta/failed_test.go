package delta

import (
	"context"
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
