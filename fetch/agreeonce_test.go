package fetch

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A disagreement between header and trailer of a digest hdig computed is
// already a mismatch of the wrong value with the bytes (verify.Compare
// checks every value, a repeated key's earlier one too): it was counted a
// second time by the header-vs-trailer agreement. Each disagreement is
// reported once; one of an algorithm hdig did not compute (unknown, or
// Repr-Digest of partial content) still fails through the agreement.
func TestHeaderTrailerDisagreementOnce(t *testing.T) {
	body := []byte("hello")
	right := sha256.Sum256(body)
	wrong := sha256.Sum256([]byte("other"))
	b64 := base64.StdEncoding.EncodeToString
	r, w := "sha-256=:"+b64(right[:])+":", "sha-256=:"+b64(wrong[:])+":"
	sums := []verify.Digest{{Algorithm: "sha-256", Value: right[:]}}
	full := reprBasis{sums: sums, content: true}
	partial := reprBasis{why: "partial content: Repr-Digest covers the whole representation"}
	for _, tc := range []struct {
		name       string
		field      string
		hdr, tr    string
		basis      reprBasis
		mismatches int
	}{
		{"earlier value in the header wrong", "Repr-Digest", w + ", " + r, r, full, 1},
		{"earlier value in the trailer wrong", "Repr-Digest", r, w + ", " + r, full, 1},
		{"content: earlier value in the header wrong", "Content-Digest", w + ", " + r, r, full, 1},
		{"trailer wrong", "Repr-Digest", r, w, full, 1},
		{"header wrong", "Content-Digest", w, r, full, 1},
		{"both wrong, alike", "Repr-Digest", w, w, full, 2},
		{"unknown algorithm", "Repr-Digest", r + ", foo=:AQ==:", "foo=:Ag==:", full, 1},
		{"partial: not compared, so the agreement tells", "Repr-Digest", r, w, partial, 1},
		{"partial: earlier value in the header", "Repr-Digest", w + ", " + r, r, partial, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hh, th := http.Header{}, http.Header{}
			hh.Set(tc.field, tc.hdr)
			th.Set(tc.field, tc.tr)
			v := bodyVerdict(responseFields(hh), responseFields(th), sums, tc.basis, &Request{Policy: verify.DefaultPolicy()})
			if n := len(v.Mismatches()); n != tc.mismatches {
				t.Errorf("%d mismatches, want %d: %v", n, tc.mismatches, v.Checks)
			}
			if tc.hdr != tc.tr && !strings.Contains(strings.Join(v.Warnings, "\n"), "differs between header and trailer") {
				t.Errorf("warnings %q do not say header and trailer differ", v.Warnings)
			}
		})
	}
}
