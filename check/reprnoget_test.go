package check

import (
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A HEAD or a 206 whose Repr-Digest does not match the representation
// fails though the GET carries no Repr-Digest: the GET's bytes, hashed,
// are what it is compared with (reprSums), and hdig get resuming with
// that 206 compares its Repr-Digest with the whole and fails. The check
// skipped it, "GET 200 has no usable Repr-Digest to compare with".
func TestOtherReprWrongWithoutGETRepr(t *testing.T) {
	failsWhenEdited(t, otherResponses[:2], func(h http.Header, picked bool) {
		if picked {
			h.Set(verify.ReprDigest, wrongSHA512)
		} else {
			h.Del(verify.ReprDigest)
		}
	}, "its Repr-Digest is not of the GET's bytes")
}
