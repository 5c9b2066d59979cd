package httpsig

import (
	"fmt"
	"strings"
	"time"
)

// checkParams applies the policy's coverage and time rules to p.
func (pol Policy) checkParams(p Params) error {
	if p.Alg != "" && !knownAlg(p.Alg) {
		return fmt.Errorf("unknown algorithm %q: %w", p.Alg, ErrPolicy)
	}
	if p.Alg != "" && !pol.algAllowed(p.Alg) {
		return fmt.Errorf("algorithm %q not allowed: %w", p.Alg, ErrPolicy)
	}
	for _, req := range pol.Require {
		if !covers(p.Components, req) {
			return fmt.Errorf("%s is not covered: %w", req, ErrPolicy)
		}
	}
	return pol.checkTime(p)
}

func (pol Policy) checkTime(p Params) error {
	now := time.Now()
	if pol.Now != nil {
		now = pol.Now()
	}
	if p.Created.IsZero() {
		if pol.RequireCreated || pol.MaxAge > 0 {
			return fmt.Errorf("no created parameter: %w", ErrPolicy)
		}
	} else {
		if p.Created.After(now.Add(pol.Skew)) {
			return fmt.Errorf("created %d is in the future (now %d, skew %s): %w", p.Created.Unix(), now.Unix(), pol.Skew, ErrPolicy)
		}
		if pol.MaxAge > 0 && p.Created.Before(now.Add(-pol.MaxAge-pol.Skew)) {
			return fmt.Errorf("created %d is older than %s (now %d): %w", p.Created.Unix(), pol.MaxAge, now.Unix(), ErrPolicy)
		}
	}
	if !p.Expires.IsZero() {
		if !p.Expires.After(now.Add(-pol.Skew)) {
			return fmt.Errorf("expired at %d (now %d, skew %s): %w", p.Expires.Unix(), now.Unix(), pol.Skew, ErrPolicy)
		}
		if !p.Created.IsZero() && p.Expires.Before(p.Created) {
			return fmt.Errorf("expires %d before created %d: %w", p.Expires.Unix(), p.Created.Unix(), ErrPolicy)
		}
	}
	return nil
}

// covers reports whether one of the "|"-separated identifiers in req is
// among cs.
func covers(cs []Component, req string) bool {
	for _, alt := range strings.Split(req, "|") {
		want, err := ParseComponent(strings.TrimSpace(alt))
		if err != nil {
			continue
		}
		for _, c := range cs {
			if c.Equal(want) {
				return true
			}
		}
	}
	return false
}

func knownAlg(a string) bool {
	switch a {
	case Ed25519, ECDSAP256SHA256, ECDSAP384SHA384, HMACSHA256, RSAPSSSHA512, RSAV15SHA256:
		return true
	}
	return false
}
