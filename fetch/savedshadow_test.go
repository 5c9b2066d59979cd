package fetch

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"testing"

	"github.com/hdig/hdig/verify"
)

// The Repr-Digest a sidecar recorded counts only for the algorithms the
// resume answer does not carry usably; an earlier value of a repeated key
// (Shadowed) of an algorithm the answer carries was compared again: one
// wrong value of the answer's own field counted twice.
func TestSavedChecksShadowedOnce(t *testing.T) {
	right := sha256.Sum256([]byte("x"))
	wrong := sha256.Sum256([]byte("y"))
	b64 := base64.StdEncoding.EncodeToString
	field := "sha-256=:" + b64(wrong[:]) + ":, sha-256=:" + b64(right[:]) + ":"
	ref := verify.ParseDigestField(verify.ReprDigest, []string{field})
	r512 := sha512.Sum512([]byte("x"))
	saved := field + ", sha-512=:" + b64(r512[:]) + ":" // a member the answer lacks: the record counts
	sums := []verify.Digest{{Algorithm: "sha-256", Value: right[:]}, {Algorithm: "sha-512", Value: r512[:]}}
	var v verify.Verdict
	v.Add(verify.Compare(ref, sums, verify.DefaultPolicy())...)
	savedChecks(&v, saved, ref, sums, verify.DefaultPolicy())
	if n := len(v.Mismatches()); n != 1 {
		t.Errorf("%d mismatches %v, want 1: the answer's field was compared, the record of the same algorithm must not be again", n, v.Checks)
	}
}
