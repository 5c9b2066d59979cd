package cmd

import (
	"net/http"
	"strings"
)

// requestHeaders reads the -H fields as curl does: 'Name: value' sends the
// field, 'Name:' (nothing after the colon) sends none and removes the one
// hdig would send itself (omit: User-Agent, Accept-Encoding, Expect,
// Want-Repr-Digest…), and 'Name;' sends it with an empty value.
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
		case colon && v == "":
			omit = append(omit, http.CanonicalHeaderKey(k))
		default:
			h.Add(k, v)
		}
	}
	return h, omit, nil
}
