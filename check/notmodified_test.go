package check

import (
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A 304 for If-None-Match: the GET's ETag whose Repr-Digest is stale (the
// digest of an earlier version) must fail etag.consistency: hdig get,
// holding the version of that ETag, compares the 304's Repr-Digest with it
// and fails, and the audit sent no conditional request to see it.
func TestNotModifiedStaleReprDigestFails(t *testing.T) {
	saw304 := false
	edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status == http.StatusNotModified {
			saw304 = true
			h.Set(verify.ReprDigest, only(sumsOf(lines(200, 2)), "sha-256"))
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if !saw304 {
		t.Error("the audit asked for no 304")
	}
	if got := result(rep, "etag.consistency"); got.Status != Fail {
		t.Errorf("etag.consistency = %s (%s), want fail: the 304's Repr-Digest is another version's\n%s", got.Status, got.Message, dump(rep))
	}
}
