package verify

import (
	"fmt"
	"strings"

	"github.com/dunglas/httpsfv"
)

// maxSalvaged bounds the members read from a field that failed to parse.
const maxSalvaged = 64

// salvage reads, one by one, the members of a digest field that is not a
// valid Dictionary (RFC 9651 §4.2 makes the whole field fail). Such a field
// proves nothing, but a member that parses on its own is still a digest
// hdig can compute: if it mismatches, the bytes or the origin are wrong, and
// a mismatch is never hidden (issue 9). Members are split at top-level
// commas (outside strings and inner lists), padded like any field, and kept
// when they parse alone as a one-member Dictionary of a Byte Sequence.
func salvage(lines []string) []Digest {
	var out []Digest
	for _, part := range topLevelMembers(strings.Join(lines, ", ")) {
		if len(out) == maxSalvaged {
			break
		}
		d, err := httpsfv.UnmarshalDictionary([]string{padByteSequences(part)})
		if err != nil || len(d.Names()) != 1 {
			continue
		}
		k := d.Names()[0]
		m, _ := d.Get(k)
		if b, why := byteSequence(k, m); why == "" {
			out = append(out, Digest{Algorithm: k, Value: b})
		}
	}
	return out
}

// topLevelMembers splits s at commas that are outside strings and inner
// lists.
func topLevelMembers(s string) []string {
	var parts []string
	start, depth := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i = skipString(s, i)
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}

// salvagedReason is the reason a salvaged member that matches is not proof.
func salvagedReason(f DigestField) string {
	return fmt.Sprintf("%s is not a valid structured field: a member read alone matches but proves nothing", f.Name)
}
