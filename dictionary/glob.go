package dictionary

import (
	"fmt"
	"strings"
)

// compileGlob turns one component's pattern into literal pieces separated by
// "*" wildcards, percent-encoding literal bytes with enc.
func compileGlob(s string, enc func(byte) bool) ([]string, error) {
	var pieces []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("a trailing \"\\\": %w", ErrUnsupported)
			}
			i++
			writeLiteral(&cur, s[i], enc)
		case '*':
			pieces = append(pieces, cur.String())
			cur.Reset()
		case '(', ')':
			return nil, fmt.Errorf("%q at offset %d: %w", c, i, ErrRegexpGroup)
		case ':':
			if i+1 < len(s) && isNameStart(s[i+1]) {
				return nil, fmt.Errorf("named group at offset %d: %w", i, ErrUnsupported)
			}
			cur.WriteByte(c)
		case '{', '}', '+', '?', '#':
			return nil, fmt.Errorf("%q at offset %d: %w", c, i, ErrUnsupported)
		default:
			writeLiteral(&cur, c, enc)
		}
	}
	return append(pieces, cur.String()), nil
}

func isNameStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func writeLiteral(b *strings.Builder, c byte, enc func(byte) bool) {
	if enc(c) {
		fmt.Fprintf(b, "%%%02X", c)
		return
	}
	b.WriteByte(c)
}

// pathEncode is the WHATWG URL path percent-encode set.
func pathEncode(c byte) bool {
	return baseEncode(c) || c == '?' || c == '`' || c == '{' || c == '}'
}

// queryEncode is the WHATWG URL special-query percent-encode set.
func queryEncode(c byte) bool { return baseEncode(c) || c == '\'' }

// baseEncode is the WHATWG query percent-encode set: C0 controls, space,
// non-ASCII and the characters that end or delimit a URL.
func baseEncode(c byte) bool {
	return c <= 0x20 || c >= 0x7F || c == '"' || c == '#' || c == '<' || c == '>'
}

// escapeLiteral escapes pattern syntax in s so compileGlob reads it as
// literal text (used for parts taken from the base URL).
func escapeLiteral(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\*(){}:+?#`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// globMatch reports whether s is pieces[0] * pieces[1] * ... pieces[n-1].
// With only "*" wildcards the leftmost placement of each middle piece is
// always safe, so one pass with strings.Index decides.
func globMatch(pieces []string, s string) bool {
	if len(pieces) == 1 {
		return s == pieces[0]
	}
	first, last := pieces[0], pieces[len(pieces)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	mid := s[len(first) : len(s)-len(last)]
	for _, p := range pieces[1 : len(pieces)-1] {
		i := strings.Index(mid, p)
		if i < 0 {
			return false
		}
		mid = mid[i+len(p):]
	}
	return true
}

// hasDotSegment reports a literal "." or ".." path segment, which the URL
// parser would resolve away.
func hasDotSegment(pieces []string) bool {
	for i, p := range pieces {
		for j, seg := range strings.Split(p, "/") {
			whole := (j > 0 || i == 0) && (j < strings.Count(p, "/") || i == len(pieces)-1)
			if whole && (seg == "." || seg == ".." || strings.EqualFold(seg, "%2e") || strings.EqualFold(seg, "%2e%2e")) {
				return true
			}
		}
	}
	return false
}
