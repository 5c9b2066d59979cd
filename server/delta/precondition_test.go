package delta

import (
	"net/http"
	"testing"
	"time"
)

// TestDeltaPreconditionFails412: a GET whose If-Match or If-Unmodified-Since
// fails is answered 412 (RFC 9110 §13.2.2: they are evaluated before
// If-None-Match), not with a 226 from the base its If-None-Match names.
func TestDeltaPreconditionFails412(t *testing.T) {
	past := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct{ name, field, value string }{
		{"if-match", "If-Match", `"sha256-someotherversionAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"`},
		{"if-unmodified-since", "If-Unmodified-Since", past},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOrigin(t, DefaultHistory)
			e1 := o.putETag(text(3000, 1))
			o.put(text(3000, 2))
			resp, _ := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1, tc.field: tc.value})
			if resp.StatusCode != http.StatusPreconditionFailed {
				t.Fatalf("%s: %s with A-IM and a retained base: status %d, want 412", tc.field, tc.value, resp.StatusCode)
			}
			// A precondition that holds still gets the delta.
			e2 := o.putETag(text(3000, 3))
			ok := map[string]string{"If-Match": e2, "If-Unmodified-Since": time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}[tc.field]
			o.put(text(3000, 3))
			resp, _ = o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1, tc.field: ok})
			if resp.StatusCode != http.StatusIMUsed {
				t.Fatalf("%s: %s that holds: status %d, want 226", tc.field, ok, resp.StatusCode)
			}
		})
	}
}
