package httpsig

import (
	"fmt"
	"strings"
)

// queryParam is the @query-param value for the encoded name (§2.2.8): the
// query parsed as application/x-www-form-urlencoded (WHATWG URL), names and
// values re-encoded with the form percent-encode set. A name absent or
// present more than once is an error.
func queryParam(rawQuery, name string) (string, error) {
	value, found := "", 0
	for _, seq := range strings.Split(rawQuery, "&") {
		if seq == "" {
			continue
		}
		n, v, _ := strings.Cut(seq, "=")
		if formEncode(formDecode(n)) != name {
			continue
		}
		found++
		value = formEncode(formDecode(v))
	}
	switch found {
	case 0:
		return "", fmt.Errorf("httpsig: @query-param %q: no such query parameter", name)
	case 1:
		return value, nil
	}
	return "", fmt.Errorf("httpsig: @query-param %q: the parameter occurs %d times, want once", name, found)
}

// formDecode replaces "+" with a space and decodes percent-encoded octets,
// leaving a "%" not followed by two hex digits as it is (WHATWG URL
// percent-decode).
func formDecode(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// formEncode percent-encodes every byte but ASCII alphanumerics and
// "*-._", spaces included (as %20, §2.2.8).
func formEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) || c == '*' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
