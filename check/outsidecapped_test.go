package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// Right fields outside RFC 9530 on every response of an origin whose GET
// is over --max-body: what could not be compared for want of the GET's
// bytes is the user's own cap, not the origin's fault. foreign-digest.match
// skipped, saying so; the HEAD, the 206 and the Want-Repr-Digest variant
// (outsideFails) warned instead, a failure under --strict for a right
// origin. One rule now: said with the check's result, its status kept.
func TestOutsideFieldsOverMaxBodyNotWarned(t *testing.T) {
	right := outsideReprValues(files["doc.txt"])
	rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if h.Get("Content-Encoding") == "" {
			for k, v := range right {
				h.Set(k, v)
			}
		}
		return body
	}))+"/doc.txt", Options{MaxBody: 1000})
	for _, id := range []string{"foreign-digest.match", "head.repr-digest", "want-repr-digest.honoured"} {
		got := result(rep, id)
		if got.Status == Warn || got.Status == Fail || !strings.Contains(got.Message, verify.GoogHash) {
			t.Errorf("%s = %s (%s), want neither a warning nor a failure, and %s said not compared", id, got.Status, got.Message, verify.GoogHash)
		}
	}
}

// The same GET with an x-amz-checksum-sha256 of other bytes: its
// Repr-Digest, standing in for the unhashed bytes as on the HEAD, shows it
// wrong (hdig get compares both with the bytes and fails). It was skipped.
func TestOutsideFieldsOverMaxBodyComparedWithReprDigest(t *testing.T) {
	rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		h.Set("x-amz-checksum-sha256", b64Of("sha-256", "not the document"))
		return body
	}))+"/doc.txt", Options{MaxBody: 1000})
	if got := result(rep, "foreign-digest.match"); got.Status != Fail {
		t.Errorf("foreign-digest.match = %s (%s), want fail: the field disagrees with the GET's Repr-Digest", got.Status, got.Message)
	}
}
