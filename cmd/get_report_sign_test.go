package cmd

import (
	"strings"
	"testing"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/verify"
)

// The verdict line and the verdict word say "authentic" by one rule: a
// signature's cover counts only when the bytes verified. A result whose
// Authentic list is set but whose outcome is not verified (a mismatch
// beside, or only a part's Content-Digest) is not authentic on either.
func TestAuthenticNeedsVerifiedOutcome(t *testing.T) {
	sig := []string{`Repr-Digest sha-256 by "origin"`}
	match := verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Result: verify.Match}
	bad := verify.Check{Field: verify.ReprDigest, Algorithm: "sha-512", Result: verify.Mismatch}
	part := verify.Check{Field: verify.ContentDigest, Algorithm: "sha-256", Result: verify.Match}
	for _, tc := range []struct {
		name   string
		checks []verify.Check
		want   bool
	}{
		{"verified", []verify.Check{match}, true},
		{"mismatch beside", []verify.Check{match, bad}, false},
		{"part only", []verify.Check{part}, false},
	} {
		res := &fetch.Result{Status: 200, Authentic: sig}
		for _, c := range tc.checks {
			res.Verdict.Add(c)
		}
		line := verdictLine(palette{}, &getOptions{}, res, nil)
		word := verdictName(res, nil)
		if got := strings.Contains(line, "✔ authentic"); got != tc.want {
			t.Errorf("%s: line %q, want authentic %v", tc.name, line, tc.want)
		}
		if got := word == "authentic"; got != tc.want {
			t.Errorf("%s: word %q, want authentic %v", tc.name, word, tc.want)
		}
	}
}
