package fetch

import (
	"testing"

	"github.com/hdig/hdig/verify"
)

// A Repr-Digest that is not a valid Dictionary proves nothing (verify
// salvage), on a piece's 206 as on a 200. A sidecar saved while the only
// Repr-Digest was such a piece's (download.late) recorded its members as
// a clean field, and the next -C counted a match with them as proof:
// "verified" where the same field makes a whole 200 "unverified".
func TestResumeSavedLateSalvagedProvesNothing(t *testing.T) {
	data := genData(1<<20, 1)
	sc, res, err := brokenThenResumed(t, data, "", sha256Field(data)+", =bad") // salvaged
	if err != nil || res.Outcome() == verify.Verified {
		t.Errorf("resumed run: %v (outcome %s, checks %v); want unverified: the sidecar's sha-256 came from a malformed field (sidecar %s)", err, res.Outcome(), res.Verdict.Checks, sc)
	}
}
