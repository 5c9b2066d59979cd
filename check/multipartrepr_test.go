package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// multipartAnswer reports whether r asked for the two ranges of
// range.multipart and status answers it with a 206.
func multipartAnswer(r *http.Request, status int) bool {
	return status == http.StatusPartialContent && strings.Contains(r.Header.Get("Range"), ",")
}

// The 206 to two ranges is a 206 as range.repr-digest's is: its
// Repr-Digest (and a field outside RFC 9530 about the representation)
// covers the whole representation. A wrong one must fail range.multipart,
// where it passed, compared with nothing.
func TestMultipartReprDigestJudged(t *testing.T) {
	for name, set := range map[string]func(http.Header){
		"Repr-Digest": func(h http.Header) { h.Set(verify.ReprDigest, wrongSHA512) },
		"obsolete Digest": func(h http.Header) {
			h.Set(verify.LegacyDigest, "SHA-256=bm90IHRoZSBkaWdlc3Qgb2YgdGhlIGZpbGUgYXQgYWxsIQ==")
		},
	} {
		edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			if multipartAnswer(r, *status) {
				set(h)
			}
			return body
		}
		rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
		if got := result(rep, "range.multipart"); got.Status != Fail {
			t.Errorf("%s: range.multipart = %s %q, want fail: the 206's digest is not of the representation", name, got.Status, got.Message)
		}
	}
}
