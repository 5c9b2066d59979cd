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

// Compare checks each member of a field against the computed digests.
// Unsupported algorithms, algorithms not computed and algorithms the policy
// does not accept are reported as Ignored with a reason; the comparison is
// still made when possible, and the reason says how it came out.
func Compare(f DigestField, computed []Digest, p Policy) []Check {
	if !f.Usable() {
		return nil
	}
	var out []Check
	for _, d := range f.Digests {
		c := Check{Field: f.Name, Algorithm: d.Algorithm, Expected: d.Value}
		a, known := Lookup(d.Algorithm)
		for _, x := range computed {
			if x.Algorithm == d.Algorithm {
				c.Actual = x.Value
			}
		}
		same := c.Actual != nil && subtle.ConstantTimeCompare(c.Actual, d.Value) == 1
		switch {
		case !known:
			c.Result, c.Reason = Ignored, "unsupported algorithm"
		case c.Actual == nil:
			c.Result, c.Reason = Ignored, "not computed"
		case !p.Accepts(d.Algorithm):
			c.Result = Ignored
			c.Reason = "not accepted"
			if a.Status == Deprecated {
				c.Reason = fmt.Sprintf("deprecated, not accepted (add --accept %s to count it)", a.Key)
			}
			if same {
				c.Reason += "; it matches"
			} else {
				c.Reason += "; it does not match"
			}
		case len(d.Value) != a.Size:
			c.Result = Mismatch
			c.Reason = fmt.Sprintf("value is %d bytes, want %d for %s", len(d.Value), a.Size, a.Key)
		case same:
			c.Result = Match
		default:
			c.Result = Mismatch
		}
		out = append(out, c)
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

// Outcome is Mismatched if any accepted digest mismatched, whatever the
// others say; else Verified if any matched; else Unverified.
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
