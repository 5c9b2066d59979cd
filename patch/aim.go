package patch

import (
	"fmt"
	"strings"

	"github.com/hdig/hdig/httpfield"
)

// Manipulation is one member of an A-IM field (RFC 3229 §10.5.3): an
// instance-manipulation name, lowercased, its qvalue and its position in
// the field (the order a server applies them in).
type Manipulation struct {
	Name string
	Q    float64
	Pos  int
}

// MaxAIM bounds the members read from an A-IM field; MaxIM the
// manipulations an IM field may list (a delta coding and compressions).
const (
	MaxAIM = 32
	MaxIM  = 8
)

// ParseAIM parses A-IM = #( instance-manipulation [ ";" "q" "=" qvalue ] )
// from the field's lines. A member whose qvalue is malformed is dropped,
// other parameters are ignored, and members after the first MaxAIM are not
// read. "q=0" means not acceptable (see Acceptable).
func ParseAIM(lines []string) []Manipulation {
	var out []Manipulation
	for _, l := range lines {
		for l != "" && len(out) < MaxAIM {
			var part string
			part, l, _ = strings.Cut(l, ",")
			if m, ok := parseMember(part); ok {
				m.Pos = len(out)
				out = append(out, m)
			}
		}
	}
	return out
}

// parseMember parses one A-IM member; ok is false for an empty name or a
// malformed qvalue.
func parseMember(part string) (Manipulation, bool) {
	name, params, _ := strings.Cut(part, ";")
	q, ok := httpfield.QValue(params)
	m := Manipulation{Name: strings.ToLower(strings.TrimSpace(name)), Q: q}
	return m, ok && m.Name != ""
}

// Acceptable returns the names of the members with a qvalue above 0, in
// the order of the field.
func Acceptable(aim []Manipulation) []string {
	var names []string
	for _, m := range aim {
		if m.Q > 0 {
			names = append(names, m.Name)
		}
	}
	return names
}

// ParseIM parses IM = #instance-manipulation (RFC 3229 §10.5.2) from the
// field's lines: the lowercased names in the order they were applied,
// parameters dropped. More than MaxIM is an error.
func ParseIM(lines []string) ([]string, error) {
	var names []string
	for _, l := range lines {
		for l != "" {
			var part string
			part, l, _ = strings.Cut(l, ",")
			if name := imName(part); name != "" {
				if len(names) == MaxIM {
					return nil, fmt.Errorf("IM lists more than %d instance manipulations", MaxIM)
				}
				names = append(names, name)
			}
		}
	}
	return names, nil
}
