package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An origin may answer a request asking for no coding (Accept-Encoding:
// identity) in gzip: the HEAD, the Want-Repr-Digest probe, the If-None-Match
// GET. Its Repr-Digest is then of the gzip-encoded representation (RFC 9530
// §3: content codings included), right though it differs from the identity
// GET's: comparing it with the identity's blamed a right origin.
func TestCodedAnswerToIdentityNotBlamed(t *testing.T) {
	for _, tc := range []struct {
		id   string
		this func(r *http.Request) bool
	}{
		{"head.repr-digest", func(r *http.Request) bool { return r.Method == http.MethodHead }},
		{"want-repr-digest.honoured", func(r *http.Request) bool {
			return strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512")
		}},
		{"etag.consistency", func(r *http.Request) bool { return r.Header.Get("If-None-Match") != "" }},
	} {
		gz := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.this(r) {
					r.Header.Set("Accept-Encoding", "gzip")
				}
				h.ServeHTTP(w, r)
			})
		}
		rep := auditURL(t, newOrigin(t, gz)+"/doc.txt", Options{})
		if got := result(rep, tc.id); got.Status == Fail || got.Status == Pass || !strings.Contains(got.Message, "Content-Encoding") {
			t.Errorf("%s = %s (%s), want no failure, and the gzip answer said not judged: its Repr-Digest is of its gzip bytes, not read", tc.id, got.Status, got.Message)
		}
	}
}
