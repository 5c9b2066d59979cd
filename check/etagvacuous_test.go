package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// etag.consistency passed with nothing compared: an origin whose 304 to
// If-None-Match carries no Repr-Digest, and whose answer to
// Want-Repr-Digest carries none either, left the GET's statement beside
// the HEAD's and the 206's (judged by checks of their own) and another
// ETag's: "3 responses … carry the same Repr-Digest", a pass on no
// comparison. It skips, naming what was stated.
func TestETagConsistencyNothingCompared(t *testing.T) {
	edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status == http.StatusNotModified || !strings.Contains(r.Header.Get(verify.WantReprDigest), "sha-256") {
			h.Del(verify.ReprDigest)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "etag.consistency"); got.Status != Skip || !strings.Contains(got.Message, "nothing compared") {
		t.Errorf("etag.consistency = %s %q, want skip: nothing was compared\n%s", got.Status, got.Message, dump(rep))
	}
}
