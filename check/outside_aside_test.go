package check

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestOutsideAsideNamesUnhashedOnly: a field whose members are of an
// algorithm hdig computes but did not hash (set aside, the GET over
// --max-body) and of one it cannot compute at all is set aside naming the
// first only: the second was never comparable, whatever --max-body says.
func TestOutsideAsideNamesUnhashedOnly(t *testing.T) {
	all, _, err := verify.Sum(bytes.NewReader([]byte("x")), verify.All)
	if err != nil {
		t.Fatal(err)
	}
	sha512, ok := lookup(all, "sha-512")
	if !ok {
		t.Fatal("no sha-512")
	}
	sha256, _ := lookup(all, "sha-256")
	f := verify.ParseDigestField(verify.ReprDigest, []string{"sha-512=:" + verify.Base64(sha512) + ":, foo-hash=:AAAA:"})
	_, bad, _, aside := judgeOutside([]verify.DigestField{f}, []verify.Digest{{Algorithm: "sha-256", Value: sha256}})
	if len(bad) > 0 || len(aside) != 1 || !strings.Contains(aside[0], "sha-512") || strings.Contains(aside[0], "foo-hash") {
		t.Errorf("bad %q, aside %q; want one aside naming sha-512, not foo-hash", bad, aside)
	}
}
