package verify

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Field names of RFC 9530 and the obsolete RFC 3230.
const (
	ReprDigest        = "Repr-Digest"
	ContentDigest     = "Content-Digest"
	WantReprDigest    = "Want-Repr-Digest"
	WantContentDigest = "Want-Content-Digest"
	LegacyDigest      = "Digest" // RFC 3230, obsoleted by RFC 9530 §1.3
)

// maxFieldLen bounds the combined field value we are willing to parse
// (RFC 9530 §6.7: implementations may restrict validation).
const maxFieldLen = 16 << 10

// Digest is one member of an Integrity field: an algorithm key and the
// digest value bytes.
type Digest struct {
	Algorithm string
	Value     []byte
}

// DigestField is a parsed Integrity field (Repr-Digest or Content-Digest).
type DigestField struct {
	Name string
	// Present says the message carried the field at all.
	Present bool
	// Ignored, when non-empty, says why the whole field was ignored
	// (RFC 9651 §2.2, §4.2): it then counts as absent.
	Ignored string
	// Digests are the members in field order; a duplicate key keeps its
	// first position and its last value (RFC 9651 §4.2.2).
	Digests []Digest
	// Duplicates names keys that appeared more than once.
	Duplicates []string
	// Shadowed are the earlier values of duplicate keys that differ from
	// the last, the one that counts (RFC 9651 §4.2.2). Two values of one
	// algorithm cannot both describe the bytes: Compare checks these too,
	// so a wrong one fails rather than hiding behind a right one.
	Shadowed []Digest
	// Obsolete marks a value read from the RFC 3230 Digest field.
	Obsolete bool
	// Skipped says which members were left out, and why: members that are
	// not Byte Sequences (ParseDigestField), members of a legacy Digest
	// field that cannot be decoded (ParseLegacyDigest). The others count.
	Skipped []string
	// Salvaged marks members read one by one from a field that is not a
	// valid Dictionary (salvage.go): a mismatch fails, a match proves
	// nothing.
	Salvaged bool
	// Trusted marks digests the user supplied (--expect, --checksum-file):
	// a match counts as proof whatever the algorithm and the policy.
	Trusted bool
}

// Usable reports whether the field was present and not ignored.
func (f DigestField) Usable() bool { return f.Present && f.Ignored == "" && len(f.Digests) > 0 }

// Get returns the value for an algorithm key.
func (f DigestField) Get(alg string) ([]byte, bool) {
	for _, d := range f.Digests {
		if d.Algorithm == alg {
			return d.Value, true
		}
	}
	return nil, false
}

// Warnings describes what a user should hear about the field: why it was
// ignored, duplicate keys, obsolete syntax.
func (f DigestField) Warnings() []string {
	var w []string
	if f.Present && f.Ignored != "" {
		w = append(w, fmt.Sprintf("%s ignored: %s", f.Name, f.Ignored))
	}
	if len(f.Duplicates) > 0 {
		w = append(w, fmt.Sprintf("%s has duplicate keys %s: the last value of each counts (RFC 9651 §4.2.2); an earlier value that differs is compared too", f.Name, strings.Join(f.Duplicates, ", ")))
	}
	for _, s := range f.Skipped {
		w = append(w, fmt.Sprintf("%s %s, ignored", f.Name, s))
	}
	if f.Obsolete && f.Present && f.Ignored == "" {
		w = append(w, "Digest (RFC 3230) is obsolete: the origin should send Repr-Digest (RFC 9530 §1.3)")
	}
	return w
}

// ParseDigestField parses the field lines of an Integrity field. A field that
// fails to parse as a Dictionary is ignored as a whole, with a reason (RFC
// 9651 §2.2, §4.2). A member whose value is not a Byte Sequence is left out
// on its own, and the reason added to Skipped: RFC 9530 §2 and §3 let a
// recipient ignore any digest, and a member it cannot use must not hide the
// others. The field is ignored only when no member is left. Unknown keys
// are kept; the verifier reports them as unsupported.
func ParseDigestField(name string, lines []string) DigestField {
	f := DigestField{Name: name, Present: len(lines) > 0}
	if !f.Present {
		return f
	}
	d, why := parseDict(lines)
	if why != "" && fieldLen(lines) <= maxFieldLen { // over the limit, nothing is read
		if f.Digests = salvage(lines); len(f.Digests) > 0 {
			f.Salvaged = true
			f.Skipped = append(f.Skipped, why+"; the members that parse alone are compared, and can only fail")
			return f
		}
	}
	if why != "" {
		f.Ignored = why
		return f
	}
	kept := map[string]bool{}
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		b, why := byteSequence(k, m)
		if why != "" {
			f.Skipped = append(f.Skipped, why)
			continue
		}
		kept[k] = true
		f.Digests = append(f.Digests, Digest{Algorithm: k, Value: b})
	}
	if len(f.Digests) == 0 {
		f.Ignored = strings.Join(f.Skipped, "; ")
		f.Skipped = nil
		return f
	}
	for _, k := range duplicateKeys(strings.Join(lines, ", ")) {
		if kept[k] {
			f.Duplicates = append(f.Duplicates, k)
		}
	}
	if len(f.Duplicates) > 0 {
		f.Shadowed = shadowed(f, salvage(lines))
	}
	return f
}

// shadowed returns the members (read one by one) of f's duplicate keys
// whose values differ from the value f kept, each value once.
func shadowed(f DigestField, members []Digest) []Digest {
	var out []Digest
	for _, m := range members {
		last, ok := f.Get(m.Algorithm)
		if !ok || !slices.Contains(f.Duplicates, m.Algorithm) || bytes.Equal(last, m.Value) {
			continue
		}
		if !slices.ContainsFunc(out, func(d Digest) bool { return d.Algorithm == m.Algorithm && bytes.Equal(d.Value, m.Value) }) {
			out = append(out, m)
		}
	}
	return out
}

// byteSequence returns the value of a Dictionary member that is a Byte
// Sequence, or why it is not one.
func byteSequence(key string, m httpsfv.Member) ([]byte, string) {
	it, ok := m.(httpsfv.Item)
	if !ok {
		return nil, fmt.Sprintf("member %q is an inner list, want a byte sequence", key)
	}
	b, ok := it.Value.([]byte)
	if !ok {
		return nil, fmt.Sprintf("member %q is %s, want a byte sequence (:base64:)", key, bareType(it.Value))
	}
	return b, ""
}

// FormatDigests serializes digests as an Integrity field value, e.g.
// `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`.
func FormatDigests(ds []Digest) string {
	d := httpsfv.NewDictionary()
	for _, x := range ds {
		d.Add(x.Algorithm, httpsfv.NewItem(x.Value))
	}
	s, err := httpsfv.Marshal(d)
	if err != nil {
		// Only keys that are not SF keys can fail; our keys are registry keys.
		panic(fmt.Sprintf("verify: cannot serialize digests: %v", err))
	}
	return s
}

// parseDict parses a Dictionary field, returning a reason on failure.
func parseDict(lines []string) (*httpsfv.Dictionary, string) {
	if total := fieldLen(lines); total > maxFieldLen {
		return nil, fmt.Sprintf("field is %d bytes, over the %d-byte limit", total, maxFieldLen)
	}
	// Combine the field lines as RFC 9651 §4.2 says, then synthesize the
	// base64 padding httpsfv would otherwise fail on (§4.2.7).
	joined := padByteSequences(strings.Join(lines, ", "))
	d, err := httpsfv.UnmarshalDictionary([]string{joined})
	if err != nil {
		return nil, fmt.Sprintf("not a valid structured-field dictionary (RFC 9651): %v", err)
	}
	if len(d.Names()) == 0 {
		return nil, "empty dictionary"
	}
	return d, ""
}

// fieldLen is the length of a field's lines together.
func fieldLen(lines []string) int {
	total := 0
	for _, l := range lines {
		total += len(l)
	}
	return total
}

func bareType(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a decimal"
	case string:
		return "a string"
	case httpsfv.Token:
		return "a token"
	case []byte:
		return "a byte sequence"
	}
	return fmt.Sprintf("a %T", v)
}

// duplicateKeys lists keys that occur more than once at the top level of a
// dictionary that already parsed, skipping strings and inner lists.
func duplicateKeys(s string) []string {
	seen := map[string]int{}
	var order []string
	start, depth := true, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			i = skipString(s, i)
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			start = true
		case start && c != ' ' && c != '\t':
			j := i
			for j < len(s) && strings.IndexByte("abcdefghijklmnopqrstuvwxyz0123456789_-.*", s[j]) >= 0 {
				j++
			}
			k := s[i:j]
			if seen[k]++; seen[k] == 2 {
				order = append(order, k)
			}
			start = false
			i = j - 1
		}
	}
	return order
}
