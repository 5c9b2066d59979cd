package verify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Pref is one member of an Integrity preference field.
type Pref struct {
	Algorithm string
	Weight    int // 0 = not acceptable, 1 least to 10 most preferred
}

// WantField is a parsed Want-Repr-Digest or Want-Content-Digest field.
type WantField struct {
	Name    string
	Present bool
	Ignored string // non-empty: the whole field was ignored, and why
	Prefs   []Pref
}

// ParseWantField parses an Integrity preference field (RFC 9530 §4): a
// Dictionary of Integers 0 to 10. Any other member type or range makes the
// whole field ignored (RFC 9651 §2.2).
func ParseWantField(name string, lines []string) WantField {
	w := WantField{Name: name, Present: len(lines) > 0}
	if !w.Present {
		return w
	}
	prefs, err := parseWant(lines)
	if err != nil {
		w.Ignored = err.Error()
		return w
	}
	w.Prefs = prefs
	return w
}

// ParseWant parses a preference list as a user writes it on the command
// line, e.g. "sha-256=10, sha-512=5". A bare key means weight 10.
func ParseWant(s string) ([]Pref, error) {
	var parts []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.Contains(p, "=") {
			p += "=10"
		}
		parts = append(parts, strings.ToLower(p))
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("empty preference list %q", s)
	}
	prefs, err := parseWant([]string{strings.Join(parts, ", ")})
	if err != nil {
		return nil, err
	}
	for _, p := range prefs {
		if _, ok := Lookup(p.Algorithm); !ok {
			return nil, fmt.Errorf("unknown digest algorithm %q (known: %s)", p.Algorithm, strings.Join(Keys(), ", "))
		}
	}
	return prefs, nil
}

func parseWant(lines []string) ([]Pref, error) {
	d, why := parseDict(lines)
	if why != "" {
		return nil, fmt.Errorf("%s", why)
	}
	var prefs []Pref
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		it, ok := m.(httpsfv.Item)
		if !ok {
			return nil, fmt.Errorf("member %q is an inner list, want an integer 0-10", k)
		}
		n, ok := it.Value.(int64)
		if !ok {
			return nil, fmt.Errorf("member %q is %s, want an integer 0-10", k, bareType(it.Value))
		}
		if n < 0 || n > 10 {
			return nil, fmt.Errorf("member %q is %d, want an integer 0-10 (RFC 9530 §4)", k, n)
		}
		prefs = append(prefs, Pref{Algorithm: k, Weight: int(n)})
	}
	return prefs, nil
}

// FormatWant serializes preferences as a field value.
func FormatWant(prefs []Pref) string {
	parts := make([]string, len(prefs))
	for i, p := range prefs {
		parts[i] = fmt.Sprintf("%s=%d", p.Algorithm, p.Weight)
	}
	return strings.Join(parts, ", ")
}

// Choose picks the algorithms a sender should use for these preferences:
// the supported algorithms of the highest non-zero weight (several when
// they tie), else the fallback when nothing usable was asked for and the
// fallback was not refused with weight 0.
func Choose(prefs []Pref, fallback string) []Algorithm {
	refused := map[string]bool{}
	var cands []Pref
	for _, p := range prefs {
		if p.Weight == 0 {
			refused[p.Algorithm] = true
			continue
		}
		if _, ok := Lookup(p.Algorithm); ok {
			cands = append(cands, p)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Weight > cands[j].Weight })
	var out []Algorithm
	for _, p := range cands {
		if p.Weight != cands[0].Weight {
			break
		}
		a, _ := Lookup(p.Algorithm)
		out = append(out, a)
	}
	if len(out) == 0 && !refused[fallback] {
		if a, ok := Lookup(fallback); ok {
			out = append(out, a)
		}
	}
	return out
}
