package delta

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// A delta known not to be possible (remembered in unmade) is no new
// failure: the operator is warned once, not at every request that asks
// for it again (found by the review: one WARN a request, which any
// client could repeat to fill the log).
func TestFailedDeltaWarnedOnce(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	var logged bytes.Buffer
	o.h.log = slog.New(slog.NewTextHandler(&logged, nil))
	base := o.putETag(text(500, 1))
	o.putETag(append(text(500, 2), "no final newline"...))
	for range 4 {
		resp, _ := o.get(map[string]string{"A-IM": "diffe", "If-None-Match": base})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, want 200 (no delta-coding applies)", resp.StatusCode)
		}
	}
	refused := map[string]string{"A-IM": "diffe, identity;q=0", "If-None-Match": base}
	if resp, _ := o.get(refused); resp.StatusCode != http.StatusNotAcceptable {
		t.Fatalf("identity refused: status %d, want 406", resp.StatusCode)
	}
	if n := strings.Count(logged.String(), "level=WARN"); n != 1 {
		t.Errorf("%d warnings for 5 requests of one delta that cannot be made, want 1:\n%s", n, logged.String())
	}
}
