package check

import (
	"net/http"
	"strings"
	"testing"
)

// A 304 to If-None-Match: the GET's ETag with no ETag of its own passed
// etag.consistency unnoted, though RFC 9110 §15.4.5 has a 304 carry the
// ETag a 200 to the same request would. It warns, naming the ETag wanted.
func TestNotModifiedWithoutETag(t *testing.T) {
	edit := func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status == http.StatusNotModified {
			h.Del("ETag")
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "etag.consistency"); got.Status != Warn || !strings.Contains(got.Message, "carries no ETag") {
		t.Errorf("etag.consistency = %s %q, want warn: the 304 carries no ETag", got.Status, got.Message)
	}
}
