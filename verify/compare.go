package verify

import (
	"crypto/subtle"
	"fmt"
)

// NotComputed is the reason of a check whose algorithm hdig knows but
// did not compute over the bytes.
const NotComputed = "not computed"

// Compare checks each member of a field against the computed digests: the
// one comparison of hdig (get, serve uploads, check). A member whose
// algorithm is unknown or was not computed is Ignored with a reason, alone:
// it never changes the result of the others. Any member that was computed
// and does not match, or whose value has the wrong length, is a Mismatch,
// whatever its algorithm and the policy: a deprecated algorithm cannot
// prove, but its mismatch is corruption (RFC 9530 §5, §6.6). The policy
// decides only what counts as proof: a match of an algorithm it does not
// accept is Ignored, with a reason saying it matches. A Trusted field (the
// user's own --expect) counts as proof with any algorithm it names.
func Compare(f DigestField, computed []Digest, p Policy) []Check {
	if !f.Usable() {
		return nil
	}
	out := make([]Check, 0, len(f.Digests)+len(f.Shadowed))
	for _, d := range f.Digests {
		out = append(out, compareOne(f, d, computed, p))
	}
	for _, d := range f.Shadowed {
		c := compareOne(f, d, computed, p)
		why := fmt.Sprintf("an earlier value of the repeated key %s", d.Algorithm)
		if c.Result == Match {
			c.Result, why = Ignored, why+": it matches, the last value counts (RFC 9651 §4.2.2)"
		}
		c.Reason = joinReasons(why, c.Reason)
		out = append(out, c)
	}
	return out
}

func compareOne(f DigestField, d Digest, computed []Digest, p Policy) Check {
	c := Check{Field: f.Name, Algorithm: d.Algorithm, Expected: d.Value}
	a, known := Find(d.Algorithm)
	for _, x := range computed {
		if x.Algorithm == d.Algorithm {
			c.Actual = x.Value
		}
	}
	if !known {
		c.Result, c.Reason = Ignored, "unsupported algorithm"
		return c
	}
	if c.Actual == nil {
		c.Result, c.Reason = Ignored, NotComputed
		return c
	}
	accepted := p.Accepts(a.Key) || f.Trusted
	switch {
	case f.Salvaged && len(d.Value) == a.Size && subtle.ConstantTimeCompare(c.Actual, d.Value) == 1:
		c.Result, c.Reason = Ignored, salvagedReason(f)
		return c
	case len(d.Value) != a.Size:
		c.Result = Mismatch
		c.Reason = fmt.Sprintf("value is %d bytes, want %d for %s", len(d.Value), a.Size, a.Key)
	case subtle.ConstantTimeCompare(c.Actual, d.Value) != 1:
		c.Result = Mismatch
	case accepted:
		c.Result = Match
		return c
	default:
		c.Result = Ignored
		c.Reason = notProof(a) + "; it matches"
		return c
	}
	if !accepted {
		c.Reason = joinReasons(c.Reason, notProof(a)+"; a mismatch fails all the same")
	}
	return c
}

// notProof says why an algorithm does not count as proof.
func notProof(a Algorithm) string {
	if a.Status == Deprecated {
		return fmt.Sprintf("deprecated, not accepted as proof (add --accept %s to count it)", a.Key)
	}
	return "not accepted as proof"
}

func joinReasons(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// Agree checks that the header and trailer instances of a field agree
// (RFC 9530 §6.4 lets a field come in either section): each algorithm in
// both must have the same value, known to hdig or not. A difference is a
// Mismatch, the header value expected and the trailer value actual. An
// earlier value of a repeated key (Shadowed) that differs from the other
// section's value is one too: two values of one algorithm cannot both
// describe the bytes, and a caller comparing two responses' fields hashes
// nothing that would tell.
func Agree(hdr, tr DigestField) []Check {
	if !hdr.Usable() || !tr.Usable() {
		return nil
	}
	var out []Check
	differ := func(want, got []byte, alg, why string) {
		if subtle.ConstantTimeCompare(got, want) != 1 {
			out = append(out, Check{Field: hdr.Name, Algorithm: alg, Expected: want, Actual: got, Result: Mismatch, Reason: why})
		}
	}
	for _, d := range hdr.Digests {
		t, ok := tr.Get(d.Algorithm)
		if !ok {
			continue
		}
		differ(d.Value, t, d.Algorithm, "header and trailer differ")
		for _, s := range hdr.Shadowed {
			if s.Algorithm == d.Algorithm {
				differ(s.Value, t, d.Algorithm, "an earlier value of the repeated key in the header differs from the trailer's")
			}
		}
		for _, s := range tr.Shadowed {
			if s.Algorithm == d.Algorithm {
				differ(d.Value, s.Value, d.Algorithm, "an earlier value of the repeated key in the trailer differs from the header's")
			}
		}
	}
	return out
}

// EmptyDigests are the digests of empty content (a HEAD's or a 304's
// Content-Digest, RFC 9530 B.2) with each algorithm.
func EmptyDigests(algs []Algorithm) []Digest {
	out := make([]Digest, len(algs))
	for i, a := range algs {
		out[i] = Digest{Algorithm: a.Key, Value: a.New().Sum(nil)}
	}
	return out
}
