package check

import (
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An origin offering a dictionary may answer Available-Dictionary in no
// coding or another (gzip): the dictionary checks then skip, but hdig get,
// holding the dictionary, gets that answer and compares its digests with
// its bytes. A wrong Repr-Digest there must fail dictionary.repr-digest,
// not leave the gate green; a right one must not.
func TestDictionaryOtherCodingAnswerDigests(t *testing.T) {
	for _, tc := range []struct {
		coding string
		wrong  bool
		want   Status
	}{{"identity", true, Fail}, {"gzip", true, Fail}, {"identity", false, Skip}, {"gzip", false, Skip}} {
		wrap := func(h http.Handler) http.Handler {
			lie := rewrite(func(_ *http.Request, _ *int, h http.Header, b []byte) []byte {
				if tc.wrong {
					h.Set(verify.ReprDigest, "sha-256=:"+b64Of("sha-256", "other bytes")+":")
				}
				h.Del("ETag") // etag.consistency cannot see it
				return b
			})(h)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Available-Dictionary") == "" {
					h.ServeHTTP(w, r)
					return
				}
				r.Header.Set("Accept-Encoding", tc.coding) // as though dcb, dcz were not offered
				r.Header.Del("Available-Dictionary")
				lie.ServeHTTP(w, r)
			})
		}
		rep := auditURL(t, dictOrigin(t, wrap)+"/doc.txt", Options{})
		if got := result(rep, "dictionary.repr-digest"); got.Status != tc.want {
			t.Errorf("%s answer, Repr-Digest wrong %v: dictionary.repr-digest = %s (%s), want %s", tc.coding, tc.wrong, got.Status, got.Message, tc.want)
		}
	}
}
