package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A 206 to two ranges under another ETag than the GET's is not skipped on
// its ETag alone (README: a second GET decides): when the second GET
// keeps the GET's bytes, its parts are compared with them, and a wrong
// byte fails.
func TestMultipartOtherETagJudged(t *testing.T) {
	edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if multipartAnswer(r, *status) {
			h.Set("ETag", `"other"`)
			h.Del(verify.ContentDigest) // else it, of the body sent, tells
			i := strings.Index(string(body), "line ")
			body[i] = 'L'
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "range.multipart"); got.Status != Fail {
		t.Errorf("range.multipart = %s %q, want fail: a part is not the representation's bytes, which did not change", got.Status, got.Message)
	}
}
