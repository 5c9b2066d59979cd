package verify

import "strings"

// padByteSequences adds the missing "=" padding to the Byte Sequences of a
// Structured Field value, e.g. `sha-256=:aGVsbG8:` → `sha-256=:aGVsbG8=:`.
//
// RFC 9651 §4.2.7 says parsers SHOULD NOT fail when padding is absent, but
// httpsfv decodes with base64.StdEncoding, which does. A Byte Sequence can
// only start where a bare item does: after the "=" of a member or a
// parameter, or after "(" or a space inside an inner list; a ":" anywhere
// else is part of a token, or inside a String or Display String, and is left
// alone. Only a Byte Sequence whose content is nothing but base64 characters
// without "=", and whose length padding can repair (2 or 3 modulo 4), is
// changed; anything else, already padded or irregular, is passed on as it
// was (for the parser to accept or reject) and the scan goes on: one Byte
// Sequence never stops the repair of the others.
func padByteSequences(s string) string {
	if strings.IndexByte(s, ':') < 0 {
		return s
	}
	var b strings.Builder
	last := 0 // s[:last] is already in b
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			i = skipString(s, i)
		case c == ':' && i > 0 && strings.IndexByte("=( \t", s[i-1]) >= 0:
			end := strings.IndexByte(s[i+1:], ':')
			if end < 0 {
				i = len(s) // unterminated: the parser fails on it
				break
			}
			end += i + 1
			content := s[i+1 : end]
			if padded := padBase64(content); padded != content && allBytesIn(content, base64Alphabet) {
				b.WriteString(s[last : i+1])
				b.WriteString(padded)
				last = end
			}
			i = end
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// skipString returns the index of the DQUOTE that ends the String (or, when
// preceded by "%", the Display String) starting at s[i], or len(s) when it
// is unterminated. Strings escape with a backslash (RFC 9651 §4.2.5);
// Display Strings escape with percent-encoding, so a backslash in them is
// an ordinary character (§4.2.10).
func skipString(s string, i int) int {
	display := i > 0 && s[i-1] == '%'
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if !display {
				i++
			}
		case '"':
			return i
		}
	}
	return len(s)
}
