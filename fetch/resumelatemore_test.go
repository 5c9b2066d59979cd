package fetch

import (
	"crypto/sha512"
	"encoding/base64"
	"slices"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestResumeSavedLateMore: the pieces' Repr-Digest members of an
// algorithm no earlier answer carried (download.lateMore) cover the whole
// as the first answer's do, but the sidecar did not record them: after
// -C, with an origin no longer sending them, they were not checked.
func TestResumeSavedLateMore(t *testing.T) {
	data := genData(1<<20, 1)
	sum := sha512.Sum512(data)
	both := sha256Field(data) + ", sha-512=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	for name, first := range map[string]string{
		"the 200's sha-256":    sha256Field(data),
		"no digest on the 200": "",
	} {
		t.Run(name, func(t *testing.T) {
			sc, res, err := brokenThenResumed(t, data, first, both)
			checked := slices.ContainsFunc(res.Verdict.Checks, func(c verify.Check) bool { return c.Algorithm == "sha-512" && c.Result == verify.Match })
			if err != nil || !checked {
				t.Errorf("resumed run: %v (checks %v); want the pieces' sha-512 checked as recorded (sidecar %s)", err, res.Verdict.Checks, sc)
			}
		})
	}
}
