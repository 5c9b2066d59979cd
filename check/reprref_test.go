package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// When the GET's own Repr-Digest is wrong, repr-digest.match fails it; a
// HEAD's or a 206's correct Repr-Digest is of the bytes the GET returned
// and must not be reported wrong (compared with the GET's false claim,
// the message blamed the response that was right).
func TestOtherResponsesComparedWithBytesNotGETClaim(t *testing.T) {
	wrong := "sha-256=:" + b64Of("sha-256", "not the document") + ":"
	edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if r.Method == http.MethodGet && *status == http.StatusOK && h.Get("Content-Encoding") == "" && !strings.HasSuffix(r.URL.Path, ".zsync") {
			h.Set(verify.ReprDigest, wrong)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "repr-digest.match"); got.Status != Fail {
		t.Errorf("repr-digest.match = %s (%s), want fail", got.Status, got.Message)
	}
	for _, id := range []string{"head.repr-digest", "range.repr-digest"} {
		if got := result(rep, id); got.Status != Pass {
			t.Errorf("%s = %s (%s), want pass: its Repr-Digest is of the bytes the GET returned", id, got.Status, got.Message)
		}
	}
}
