package verify

import (
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
