package check

import (
	"net/http"
	"strings"
	"testing"
)

// A 226 carrying the ETag of the version its delta is from (If-None-Match
// named it), or that tag weakened, names the instance it rebuilds with the
// base's tag: one tag for two instances, and If-None-Match, compared
// weakly, should then have answered 304. A client stores the rebuilt bytes
// under that tag; it must fail delta.226 though the bytes rebuild right.
func TestDeltaUnderBaseETagFails(t *testing.T) {
	for _, weak := range []bool{false, true} {
		var base string
		wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
			if *status == http.StatusIMUsed {
				h.Set("ETag", base)
				if weak {
					h.Set("ETag", "W/"+base)
				}
			}
			return body
		})
		url, e1 := deltaOrigin(t, wrap)
		base = e1
		r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
		if got := result(r, "delta.226"); got.Status != Fail || !strings.Contains(got.Message, "version the delta is from") {
			t.Errorf("weak %v: delta.226 = %s %q, want fail: the 226 names the rebuilt instance with the base's ETag", weak, got.Status, got.Message)
		}
	}
}
