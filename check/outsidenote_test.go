package check

import (
	"net/http"
	"strings"
	"testing"
)

// A field outside RFC 9530 on a HEAD, a 206 or a Want-Repr-Digest variant that hdig cannot compare
// (no member of an algorithm it computes, or the GET body was over
// --max-body so its bytes were not hashed) is said, as foreign-digest.match
// says it of the GET's: the check does not pass as though it had been
// compared. It was dropped silently. Over --max-body it is the user's cap,
// not the origin's fault: said, the check passing all the same
// (TestOutsideFieldsOverMaxBodyNotWarned).
func TestOutsideFieldsNotComparedNoted(t *testing.T) {
	for _, tc := range []struct {
		name, field, value string
		opts               Options
		mayPass            bool
	}{
		{"no member hdig computes", "Unencoded-Digest", "foo=:AAAA:", Options{}, false},
		{"GET over --max-body", "x-amz-checksum-crc64nvme", b64Of("crc64nvme", "not the document"), Options{MaxBody: 4000}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, o := range otherResponses { // the HEAD, the 206 and the variant
				rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
					if o.this(r, *status) {
						h.Set(tc.field, tc.value)
					}
					return body
				}))+"/doc.txt", tc.opts)
				got := result(rep, o.id)
				if got.Status == Pass && !tc.mayPass || got.Status == Fail || !strings.Contains(got.Message, tc.field) {
					t.Errorf("%s = %s (%s), want a note naming %s, not a silent pass", o.id, got.Status, got.Message, tc.field)
				}
			}
		})
	}
}
