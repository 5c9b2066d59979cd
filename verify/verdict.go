package verify

import (
	"crypto/subtle"
	"fmt"
	"strings"
)

// Result is the outcome of checking one digest member.
type Result string

// Results, as the contract's JSON names them.
const (
	Match    Result = "match"
	Mismatch Result = "mismatch"
	Ignored  Result = "ignored"
)

// Check is the outcome for one member of an Integrity field.
type Check struct {
	Field     string // "Repr-Digest", "Content-Digest" or "Digest"
	Algorithm string
	Expected  []byte
	Actual    []byte // nil when not computed
	Result    Result
	// Reason says why a member was ignored, or adds context.
	Reason string
}

// Policy says which algorithms count as proof.
type Policy struct {
	// Accept lists the algorithm keys accepted as proof. A deprecated
	// algorithm counts only when named here (RFC 9530 §5, §6.6).
	Accept []string
}

// DefaultAccept is the default --accept list.
const DefaultAccept = "sha-256,sha-512"

// DefaultPolicy accepts sha-256 and sha-512.
func DefaultPolicy() Policy { return Policy{Accept: []string{"sha-256", "sha-512"}} }

// Accepts reports whether alg counts as proof.
func (p Policy) Accepts(alg string) bool {
	for _, a := range p.Accept {
		if a == alg {
			return true
		}
	}
	return false
}

// Compare checks each member of a field against the computed digests: the
// one comparison of hdig (get, serve uploads, check). A member whose
// algorithm is unknown or was not computed is Ignored with a reason, alone:
// it never changes the result of the others. Any member that was computed
// and does not match, or whose value has the wrong length, is a Mismatch,
// whatever its algorithm and the policy: a deprecated algorithm cannot
// prove, but its mismatch is corruption (RFC 9530 §5, §6.6). The policy
// decides only what counts as proof: a match of an algorithm it does not
// accept is Ignored, with a reason saying it matches.
func Compare(f DigestField, computed []Digest, p Policy) []Check {
	if !f.Usable() {
		return nil
	}
	out := make([]Check, 0, len(f.Digests))
	for _, d := range f.Digests {
		out = append(out, compareOne(f.Name, d, computed, p))
	}
	return out
}

func compareOne(field string, d Digest, computed []Digest, p Policy) Check {
	c := Check{Field: field, Algorithm: d.Algorithm, Expected: d.Value}
	a, known := Lookup(d.Algorithm)
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
		c.Result, c.Reason = Ignored, "not computed"
		return c
	}
	accepted := p.Accepts(a.Key)
	switch {
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
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Agree checks that the header and trailer instances of a field agree
// (RFC 9530 §6.4 lets a field come in either section): each algorithm in
// both must have the same value, known to hdig or not. A difference is a
// Mismatch, the header value expected and the trailer value actual.
func Agree(hdr, tr DigestField) []Check {
	if !hdr.Usable() || !tr.Usable() {
		return nil
	}
	var out []Check
	for _, d := range hdr.Digests {
		t, ok := tr.Get(d.Algorithm)
		if ok && subtle.ConstantTimeCompare(t, d.Value) != 1 {
			out = append(out, Check{Field: hdr.Name, Algorithm: d.Algorithm, Expected: d.Value, Actual: t,
				Result: Mismatch, Reason: "header and trailer differ"})
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

// Outcome is a verdict's overall result.
type Outcome string

// Outcomes, as the contract's JSON names them.
const (
	Verified   Outcome = "verified"
	Mismatched Outcome = "mismatch"
	Unverified Outcome = "unverified"
)

// Verdict collects the checks of one transfer.
type Verdict struct {
	Checks   []Check
	Warnings []string
}

// Add appends checks.
func (v *Verdict) Add(cs ...Check) { v.Checks = append(v.Checks, cs...) }

// Warn appends warnings.
func (v *Verdict) Warn(ws ...string) { v.Warnings = append(v.Warnings, ws...) }

// Outcome is Mismatched if any digest mismatched, whatever the others say;
// else Verified if any accepted digest matched; else Unverified.
func (v *Verdict) Outcome() Outcome {
	matched := false
	for _, c := range v.Checks {
		switch c.Result {
		case Mismatch:
			return Mismatched
		case Match:
			matched = true
		}
	}
	if matched {
		return Verified
	}
	return Unverified
}

// Verified reports whether a check of the given field matched ("" = any).
func (v *Verdict) Verified(field string) bool {
	for _, c := range v.Checks {
		if c.Result == Match && (field == "" || c.Field == field) {
			return true
		}
	}
	return false
}

// Mismatches returns the failing checks.
func (v *Verdict) Mismatches() []Check {
	var out []Check
	for _, c := range v.Checks {
		if c.Result == Mismatch {
			out = append(out, c)
		}
	}
	return out
}

// String describes a check in one line, saying want and got on mismatch.
func (c Check) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", c.Field, c.Algorithm, c.Result)
	if c.Result == Mismatch {
		fmt.Fprintf(&b, ": want %s, got %s", b64(c.Expected), b64(c.Actual))
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, " (%s)", c.Reason)
	}
	return b.String()
}
