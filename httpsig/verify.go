package httpsig

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors Verify wraps, to tell a missing signature from a bad one.
var (
	// ErrNoSignature: the message has no signature that the policy
	// considers (none at all, none with the label or tag asked for).
	ErrNoSignature = errors.New("no signature")
	// ErrPolicy: a signature does not meet the policy (coverage, time,
	// key, algorithm).
	ErrPolicy = errors.New("signature does not meet the policy")
	// ErrNoKey: no key of the policy may have made the signature (keyid
	// or alg). errors.Is(err, ErrPolicy) holds too.
	ErrNoKey = fmt.Errorf("no trusted key: %w", ErrPolicy)
	// ErrAlgMismatch: the keyid names a key of the policy, and the alg
	// parameter does not fit it: the signature fails (§3.2 step 6).
	// errors.Is(err, ErrBadSignature) holds.
	ErrAlgMismatch = fmt.Errorf("alg does not fit the key: %w", ErrBadSignature)
	// ErrNoTrailer: a covered component is a field of the message's own
	// trailer (tr, without req) that the message does not have, as when
	// its body was not read to its end and the trailer never came. The
	// other checks of the signature (parameters, time, key and alg) were
	// met before its base was built; its value was not checked.
	ErrNoTrailer = errors.New("a covered trailer field is not in the message")
)

// Key is a verification key with its identifier. An empty ID matches any
// keyid (a key known by external means, §3.2 step 5).
type Key struct {
	ID string
	Verifier
}

// Policy is what a verifier demands of a signature (§3.2.1).
type Policy struct {
	Keys  []Key
	Label string   // only this label, if set
	Tag   string   // the tag parameter must be this, if set
	Algs  []string // allowed algorithms; empty: all of this package
	// Require lists components that must all be covered; each entry may
	// name alternatives separated by "|", e.g. "repr-digest|content-digest".
	Require []string
	// RequireCreated rejects signatures without created.
	RequireCreated bool
	// MaxAge rejects a created older than now-MaxAge (0: no limit).
	MaxAge time.Duration
	// Skew is the clock skew allowed: created may be up to Skew in the
	// future, expires up to Skew in the past.
	Skew time.Duration
	// Now is the clock (time.Now if nil).
	Now func() time.Time
}

// Result describes a signature that verified.
type Result struct {
	Label  string
	KeyID  string
	Alg    string
	Params Params
	Base   []byte
	// KeyName is the ID of the policy's key that verified ("" for a key
	// that matches any keyid): KeyID is only what the signature claims.
	KeyName string
}

// Verify checks the signatures of m against pol and returns the first that
// verifies and meets it. A malformed label is skipped unless it is
// pol.Label or the only kind there is. The error wraps ErrNoSignature when none applies,
// else ErrBadSignature or ErrPolicy with each label's failure.
func Verify(m Message, pol Policy) (Result, error) {
	if m.Request == nil && m.Response == nil {
		return Result{}, fmt.Errorf("httpsig: no message to verify")
	}
	sigs, bad, err := ParseEach(m.target())
	if err != nil {
		return Result{}, err
	}
	for _, b := range bad {
		if b.Label == pol.Label || len(sigs) == 0 {
			return Result{}, b
		}
	}
	var fails []string
	var last error
	considered, lastLabel := 0, ""
	for _, s := range sigs {
		if (pol.Label != "" && s.Label != pol.Label) || (pol.Tag != "" && s.Params.Tag != pol.Tag) {
			continue
		}
		considered++
		r, err := verifyOne(m, s, pol)
		if err == nil {
			return r, nil
		}
		last, lastLabel = err, s.Label
		fails = append(fails, fmt.Sprintf("%s: %v", s.Label, err))
	}
	if considered == 0 {
		return Result{}, fmt.Errorf("httpsig: %w%s", ErrNoSignature, wanted(pol, len(sigs)))
	}
	if considered == 1 {
		return Result{}, fmt.Errorf("httpsig: signature %s: %w", lastLabel, last)
	}
	return Result{}, fmt.Errorf("httpsig: no signature verified (%s): %w", strings.Join(fails, "; "), last)
}

func wanted(pol Policy, n int) string {
	switch {
	case n == 0:
		return ""
	case pol.Label != "" && pol.Tag != "":
		return fmt.Sprintf(" labelled %q with tag %q among %d", pol.Label, pol.Tag, n)
	case pol.Label != "":
		return fmt.Sprintf(" labelled %q among %d", pol.Label, n)
	}
	return fmt.Sprintf(" with tag %q among %d", pol.Tag, n)
}

func verifyOne(m Message, s Signature, pol Policy) (Result, error) {
	if err := pol.checkParams(s.Params); err != nil {
		return Result{}, err
	}
	keys, err := pol.keysFor(s.Params)
	if err != nil {
		return Result{}, err
	}
	base, err := Base(m, s.Params)
	if err != nil {
		return Result{}, err
	}
	var verr error
	for _, k := range keys {
		if verr = k.Verify(base, s.Value); verr == nil {
			return Result{Label: s.Label, KeyID: s.Params.KeyID, Alg: k.Alg(), Params: s.Params, Base: base, KeyName: k.ID}, nil
		}
	}
	return Result{}, verr
}

// Applies reports whether a key of the policy may have made a signature
// with p: matching keyid (or a key without ID), alg and the allowed
// algorithms; or whose keyid names a key of the policy, whatever its alg
// (a signature that then fails, ErrAlgMismatch).
func (pol Policy) Applies(p Params) bool {
	_, err := pol.keysFor(p)
	return !errors.Is(err, ErrNoKey)
}

// keysFor are the keys that may have made a signature with p: matching
// keyid (or no ID), matching alg, allowed by the policy. A keyid that
// names keys of the policy none of whose algorithms is p's alg is not a
// signature by another key but a failed one (§3.2 step 6, §7.3.6: the alg
// must fit the key the keyid names): ErrAlgMismatch, not ErrNoKey.
func (pol Policy) keysFor(p Params) ([]Key, error) {
	var out []Key
	named := ""
	for _, k := range pol.Keys {
		if k.ID != "" && k.ID != p.KeyID {
			continue
		}
		if !pol.algAllowed(k.Alg()) {
			continue
		}
		if p.Alg != "" && p.Alg != k.Alg() {
			if k.ID != "" {
				named = k.Alg()
			}
			continue
		}
		out = append(out, k)
	}
	switch {
	case len(out) == 0 && named != "":
		return nil, fmt.Errorf("keyid %q names a trusted %s key, alg %q does not fit it: %w", p.KeyID, named, p.Alg, ErrAlgMismatch)
	case len(out) == 0:
		return nil, fmt.Errorf("keyid %q alg %q: %w", p.KeyID, p.Alg, ErrNoKey)
	}
	return out, nil
}

func (pol Policy) algAllowed(alg string) bool {
	if len(pol.Algs) == 0 {
		return true
	}
	for _, a := range pol.Algs {
		if a == alg {
			return true
		}
	}
	return false
}
