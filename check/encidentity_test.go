package check

import (
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An origin may answer Accept-Encoding: gzip, br, … in no coding: the
// encoding checks then skip, but hdig get --compressed gets that answer
// and compares its digests with its bytes. A wrong Repr-Digest there must
// fail encoding.repr-digest, not leave the gate green; a right one must
// not.
func TestEncodingIdentityAnswerDigests(t *testing.T) {
	for _, wrong := range []bool{true, false} {
		wrap := func(h http.Handler) http.Handler {
			lie := rewrite(func(_ *http.Request, _ *int, h http.Header, b []byte) []byte {
				if wrong {
					h.Set(verify.ReprDigest, "sha-256=:"+b64Of("sha-256", "other bytes")+":")
				}
				h.Del("ETag") // etag.consistency cannot see it
				return b
			})(h)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept-Encoding") != EncodingsAsked {
					h.ServeHTTP(w, r)
					return
				}
				r.Header.Set("Accept-Encoding", "identity") // as though no coding were offered
				lie.ServeHTTP(w, r)
			})
		}
		want := map[bool]Status{true: Fail, false: Skip}[wrong]
		rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
		if got := result(rep, "encoding.repr-digest"); got.Status != want {
			t.Errorf("Repr-Digest wrong %v: encoding.repr-digest = %s (%s), want %s", wrong, got.Status, got.Message, want)
		}
	}
}
