package fetch

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// The obsolete Digest field of a 226 is checked against the rebuilt
// instance beside a matching Repr-Digest, in the header and in the
// trailer: a member hdig computed that does not match is a mismatch, not
// a field passed over because Repr-Digest is there.
func TestDeltaLegacyDigestMismatchBesideRepr(t *testing.T) {
	body := []byte("rebuilt bytes\n")
	sha, _ := verify.Lookup("sha-256")
	sums, _, _ := verify.Sum(bytes.NewReader(body), []verify.Algorithm{sha})
	wrong := "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
	req := &Request{Policy: verify.DefaultPolicy()}
	for _, tt := range []struct {
		name   string
		hdr, t http.Header
	}{
		{"header", http.Header{"Repr-Digest": {sha256Field(body)}, "Digest": {wrong}}, nil},
		{"trailer", http.Header{"Repr-Digest": {sha256Field(body)}}, http.Header{"Digest": {wrong}}},
	} {
		v := reprVerdict(tt.hdr, tt.t, sums, req)
		if v.Outcome() != verify.Mismatched {
			t.Errorf("%s: outcome %s, want mismatch; checks %v", tt.name, v.Outcome(), v.Checks)
		}
	}
}
