package cmd

import (
	"net/http"
	"strings"
)

// requestHeaders reads the -H fields as curl does: 'Name: value' sends the
// field, 'Name:' (nothing after the colon) sends none and removes the one
// hdig would send itself (omit: User-Agent, Accept-Encoding, Expect,
// Want-Repr-Digest…), and 'Name;' sends it with an empty value. A name
// that is not a token, or a CR, LF or NUL in a value, is a usage error:
// it would write other fields into the request.
func requestHeaders(list []string) (http.Header, []string, error) {
	h := http.Header{}
	var omit []string
	for _, f := range list {
		k, v, colon := strings.Cut(f, ":")
		if !colon && strings.HasSuffix(strings.TrimSpace(f), ";") {
			k = strings.TrimSuffix(strings.TrimSpace(f), ";")
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case k == "" || !colon && k == strings.TrimSpace(f):
			return nil, nil, usageErrorf("-H %q: want 'Name: value' ('Name:' sends none, 'Name;' an empty one)", f)
		case !fieldName(k):
			return nil, nil, usageErrorf("-H %q: %q is not a field name", f, k)
		case strings.ContainsFunc(v, control):
			return nil, nil, usageErrorf("-H %q: a field value may not hold CR, LF, NUL or another control character", f)
		case colon && v == "":
			omit = append(omit, http.CanonicalHeaderKey(k))
		default:
			h.Add(k, v)
		}
	}
	return h, omit, nil
}

// fieldName says k is a token (RFC 9110 §5.1, §5.6.2).
func fieldName(k string) bool {
	return k != "" && !strings.ContainsFunc(k, func(c rune) bool {
		return c > '~' || c <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c)
	})
}

// control says c may not be in a field value (RFC 9110 §5.5): a control
// character other than HTAB (CR, LF and NUL among them).
func control(c rune) bool { return c < ' ' && c != '\t' || c == 0x7f }
