package check

import (
	"net/http"
	"strings"
	"testing"
)

// A 304 to If-None-Match: the GET's ETag that names another ETag breaks
// "an unchanged representation keeps its ETag": RFC 9110 §15.4.5 has a
// 304 carry the ETag a 200 would, a cache holding the version cannot use
// it (RFC 9111 §4.3.4), and hdig get, holding no version of that tag,
// fetches again. etag.consistency must not pass it; one weakened, the same
// tag by weak comparison, is not another.
func TestNotModifiedOtherETag(t *testing.T) {
	for etag, want := range map[string]Status{`"other"`: Warn, "weakened": Pass} {
		edit := func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
			if *status == http.StatusNotModified {
				if etag == "weakened" {
					h.Set("ETag", "W/"+h.Get("ETag"))
				} else {
					h.Set("ETag", etag)
				}
			}
			return body
		}
		got := result(auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{}), "etag.consistency")
		if got.Status != want || want == Warn && !strings.Contains(got.Message, "the 304 for If-None-Match") {
			t.Errorf("304 with ETag %s: etag.consistency = %s %q, want %s", etag, got.Status, got.Message, want)
		}
	}
}
