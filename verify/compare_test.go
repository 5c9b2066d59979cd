package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

func TestAgree(t *testing.T) {
	hdr := ParseDigestField(ReprDigest, []string{"sha-256=:" + sha256Hello + ":, foo=:AQ==:, md5=:AQ==:"})
	same := ParseDigestField(ReprDigest, []string{"sha-256=:" + sha256Hello + ":, foo=:AQ==:"})
	if cs := Agree(hdr, same); len(cs) != 0 {
		t.Errorf("Agree(same) = %v, want nothing", cs)
	}
	tr := ParseDigestField(ReprDigest, []string{"sha-256=:" + sha256Empty + ":, foo=:Ag==:, sha-512=:AQ==:"})
	cs := Agree(hdr, tr)
	if len(cs) != 2 {
		t.Fatalf("Agree = %v, want sha-256 and foo", cs)
	}
	for i, alg := range []string{"sha-256", "foo"} {
		c := cs[i]
		if c.Algorithm != alg || c.Result != Mismatch || c.Field != ReprDigest || !strings.Contains(c.Reason, "header and trailer differ") {
			t.Errorf("check %d = %+v, want a %s mismatch between header and trailer", i, c, alg)
		}
	}
	if !bytes.Equal(cs[0].Expected, mustB64(t, sha256Hello)) || !bytes.Equal(cs[0].Actual, mustB64(t, sha256Empty)) {
		t.Errorf("check = %v, want header value expected, trailer value actual", cs[0])
	}
	if cs := Agree(hdr, DigestField{Name: ReprDigest}); cs != nil {
		t.Errorf("Agree with an absent trailer = %v", cs)
	}
}

func TestEmptyDigests(t *testing.T) {
	ds := EmptyDigests(Algorithms)
	if len(ds) != len(Algorithms) {
		t.Fatalf("EmptyDigests = %v, want one per algorithm", ds)
	}
	want, _, err := Sum(strings.NewReader(""), Algorithms)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		if d.Algorithm != want[i].Algorithm || !bytes.Equal(d.Value, want[i].Value) {
			t.Errorf("EmptyDigests[%d] = %v, want %v", i, d, want[i])
		}
	}
	if v, _ := (DigestField{Digests: ds}).Get("sha-256"); Base64(v) != sha256Empty {
		t.Errorf("sha-256 of empty content = %s, want %s", Base64(v), sha256Empty)
	}
}

// A repeated key whose earlier value is wrong: the last value counts (RFC
// 9651 §4.2.2) and matches, but two values of one algorithm cannot both
// describe the bytes, and the wrong one is a mismatch, never hidden. The
// obsolete Digest field repeats an algorithm as a Dictionary repeats a key,
// and is held to the same rule.
func TestCompareShadowedDuplicate(t *testing.T) {
	right := sha256.Sum256([]byte("x"))
	wrong := sha256.Sum256([]byte("y"))
	b64 := base64.StdEncoding.EncodeToString
	rfc := func(v []byte) string { return "sha-256=:" + b64(v) + ":" }
	legacy := func(v []byte) string { return "SHA-256=" + b64(v) }
	computed := []Digest{{Algorithm: "sha-256", Value: right[:]}}
	for _, tt := range []struct {
		name  string
		parse func([]string) DigestField
		lines []string
		match bool // one match, else one mismatch
	}{
		{"one line", rfcField, []string{rfc(wrong[:]) + ", " + rfc(right[:])}, false},
		{"two lines", rfcField, []string{rfc(wrong[:]), rfc(right[:])}, false},
		{"last wrong", rfcField, []string{rfc(right[:]) + ", " + rfc(wrong[:])}, false},
		{"wrong length", rfcField, []string{"sha-256=:AAAA:, " + rfc(right[:])}, false},
		{"same value", rfcField, []string{rfc(right[:]) + ", " + rfc(right[:])}, true},
		{"legacy one line", ParseLegacyDigest, []string{legacy(wrong[:]) + ", sha-256=" + b64(right[:])}, false},
		{"legacy two lines", ParseLegacyDigest, []string{legacy(wrong[:]), legacy(right[:])}, false},
		{"legacy same value", ParseLegacyDigest, []string{legacy(right[:]) + ", " + legacy(right[:])}, true},
	} {
		cs := Compare(tt.parse(tt.lines), computed, DefaultPolicy())
		var v Verdict
		v.Add(cs...)
		switch {
		case tt.match && (len(cs) != 1 || cs[0].Result != Match):
			t.Errorf("%s: %v, want one match", tt.name, cs)
		case !tt.match && len(v.Mismatches()) != 1:
			t.Errorf("%s: checks %v, want one mismatch", tt.name, cs)
		}
	}
}

func rfcField(lines []string) DigestField { return ParseDigestField(ReprDigest, lines) }

// The reason of an earlier value of a repeated key is printed on the
// mismatch line: it must not end in an empty "; ".
func TestCompareShadowedReason(t *testing.T) {
	right := sha256.Sum256([]byte("x"))
	wrong := sha256.Sum256([]byte("y"))
	b64 := base64.StdEncoding.EncodeToString
	f := ParseDigestField(ReprDigest, []string{"sha-256=:" + b64(wrong[:]) + ":, sha-256=:" + b64(right[:]) + ":"})
	for _, c := range Compare(f, []Digest{{Algorithm: "sha-256", Value: right[:]}}, DefaultPolicy()) {
		if strings.HasSuffix(c.Reason, "; ") || strings.Contains(c.Reason, "; ;") {
			t.Errorf("reason %q ends in an empty part", c.Reason)
		}
	}
}

// A repeated key's earlier value (Shadowed) that differs from the other
// section's value is a disagreement: two values of one algorithm cannot
// both describe the bytes, and where the bytes are not hashed (another
// response's field, fetch's differ for pieces and mirrors; an algorithm
// hdig does not know) nothing else would say so. Agree read only the last
// value of each key.
func TestAgreeShadowed(t *testing.T) {
	x, y := "sha-256=:"+strings.Repeat("A", 43)+"=:", "sha-256=:"+strings.Repeat("B", 43)+"=:"
	for _, tc := range []struct{ hdr, tr string }{
		{y + ", " + x, x},
		{x, y + ", " + x},
		{"foo=:AAAA:, foo=:BBBB:", "foo=:BBBB:"},
	} {
		hdr := ParseDigestField(ReprDigest, []string{tc.hdr})
		tr := ParseDigestField(ReprDigest, []string{tc.tr})
		if cs := Agree(hdr, tr); len(cs) == 0 || cs[0].Result != Mismatch {
			t.Errorf("Agree(%q, %q) = %v, want a mismatch: an earlier value of the repeated key differs", tc.hdr, tc.tr, cs)
		}
	}
}
