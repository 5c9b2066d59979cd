package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An origin that answers Want-Content-Digest: sha-512 (the probe of
// want-repr-digest.honoured) with a wrong Content-Digest, its Repr-Digest
// right, must not pass the gate: hdig get --want-content sha-512 gets a
// Content-Digest its bytes do not match and fails.
func TestWantVariantWrongContentDigestFails(t *testing.T) {
	edit := func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if strings.HasPrefix(r.Header.Get(verify.WantContentDigest), "sha-512") {
			h.Set(verify.ContentDigest, wrongSHA512)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "want-repr-digest.honoured"); got.Status != Fail {
		t.Errorf("want-repr-digest.honoured = %s (%s), want fail: the sha-512 Content-Digest sent on request is wrong\n%s", got.Status, got.Message, dump(rep))
	}
}
