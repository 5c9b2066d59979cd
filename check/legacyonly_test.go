package check

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An origin that sends only the obsolete Digest (no Repr-Digest anywhere)
// and a wrong one on its HEAD or 206 must fail head.repr-digest or
// range.repr-digest: hdig get compares Digest wherever it appears (-I,
// -C resume through a 206). It was compared only when both the GET and
// that response carried a Repr-Digest, so the check was skipped or warned.
func TestLegacyOnlyWrongDigestFails(t *testing.T) {
	wrong := "SHA-256=" + base64.StdEncoding.EncodeToString(sumOf256("not the document"))
	failsWhenEdited(t, otherResponses[:2], func(h http.Header, picked bool) {
		h.Del(verify.ReprDigest) // from every response, the GET's included
		if picked {
			h.Set(verify.LegacyDigest, wrong)
		}
	}, "its obsolete Digest names other bytes")
}

// So must an encoded variant's: its obsolete Digest, the only digest field
// the origin sends, that does not match its encoded bytes fails
// encoding.repr-digest (hdig get --compressed compares it with them).
func TestLegacyOnlyWrongDigestOnVariantFails(t *testing.T) {
	wrong := "SHA-256=" + base64.StdEncoding.EncodeToString(sumOf256("not the document"))
	edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		h.Del(verify.ReprDigest)
		if h.Get("Content-Encoding") != "" {
			h.Set(verify.LegacyDigest, wrong)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "encoding.repr-digest"); got.Status != Fail {
		t.Errorf("encoding.repr-digest = %s (%s), want fail: its obsolete Digest names other bytes", got.Status, got.Message)
	}
}
