package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// With the GET over --max-body, its body is not hashed, and the answer to
// Want-Repr-Digest: sha-512 carries an algorithm the GET's Repr-Digest
// (sha-256) does not: nothing to compare it with. want-repr-digest.honoured
// passed with it wrong, saying nothing of what it had not compared. The
// cap is the user's, so the status stays; the result says what was not
// compared, as foreign-digest.match's asides do.
func TestWantUncomparedSaid(t *testing.T) {
	edit := func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512") {
			h.Set(verify.ReprDigest, "sha-512=:"+strings.Repeat("A", 86)+"==:")
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{MaxBody: 1000})
	if got := result(rep, "want-repr-digest.honoured"); got.Status == Pass && !strings.Contains(got.Message, "not compared") {
		t.Errorf("want-repr-digest.honoured = %s %q, want what was not compared said\n%s", got.Status, got.Message, dump(rep))
	}
}
