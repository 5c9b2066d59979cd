package httpfield

import "strings"

// Bounds of ParseLinks: an origin's Link field is outside input.
const (
	maxLinkValues = 64       // field lines looked at
	maxLinks      = 256      // links returned
	maxLinkLen    = 16 << 10 // bytes of one field line
)

// Link is one link-value of a Link field (RFC 8288 §3): a target URI
// reference and its parameters. Rel holds the relation types, lower case;
// Params the other parameters, names lower case, values unquoted; of a
// parameter given twice, the first counts (RFC 8288 §3.3, §3.4.1).
type Link struct {
	Target string
	Rel    []string
	Params map[string]string
}

// HasRel says whether the link has relation type rel (compared case-
// insensitively).
func (l Link) HasRel(rel string) bool {
	for _, r := range l.Rel {
		if strings.EqualFold(r, rel) {
			return true
		}
	}
	return false
}

// ParseLinks reads the links of Link field values (RFC 8288 §3): at most
// 64 lines of at most 16 KiB each, and 256 links. A malformed link-value
// (no <target>, an empty one) is passed over; the others stand.
func ParseLinks(values []string) []Link {
	var out []Link
	for i, v := range values {
		if i == maxLinkValues {
			break
		}
		if len(v) > maxLinkLen {
			continue
		}
		for _, lv := range splitLinks(v) {
			if l, ok := parseLink(lv); ok {
				if len(out) == maxLinks {
					return out
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// LinksWithRel returns the targets of the links with relation type rel,
// in order, at most max of them (max <= 0: none).
func LinksWithRel(values []string, rel string, max int) []string {
	var out []string
	for _, l := range ParseLinks(values) {
		if len(out) >= max {
			break
		}
		if l.HasRel(rel) {
			out = append(out, l.Target)
		}
	}
	return out
}

// splitLinks splits a Link field value at the commas outside <> and quotes.
func splitLinks(v string) []string {
	var out []string
	inURI, inQuote, start := false, false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case inQuote && c == '\\':
			i++
		case inQuote:
			inQuote = c != '"'
		case inURI:
			inURI = c != '>'
		case c == '<':
			inURI = true
		case c == '"':
			inQuote = true
		case c == ',':
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// parseLink reads one link-value: <target> *( ";" param [ "=" value ] ).
func parseLink(lv string) (Link, bool) {
	lv = strings.TrimSpace(lv)
	if !strings.HasPrefix(lv, "<") {
		return Link{}, false
	}
	end := strings.IndexByte(lv, '>')
	if end < 0 {
		return Link{}, false
	}
	l := Link{Target: strings.TrimSpace(lv[1:end]), Params: map[string]string{}}
	if l.Target == "" {
		return Link{}, false
	}
	rest := strings.TrimSpace(lv[end+1:])
	if rest != "" && rest[0] != ';' {
		return Link{}, false
	}
	seenRel := false
	for _, p := range splitParams(rest) {
		k, v, _ := strings.Cut(p, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		v = unquote(strings.TrimSpace(v))
		if k == "" {
			continue
		}
		if k == "rel" {
			if !seenRel {
				l.Rel = strings.Fields(strings.ToLower(v))
			}
			seenRel = true
			continue
		}
		if _, ok := l.Params[k]; !ok {
			l.Params[k] = v
		}
	}
	return l, true
}

// splitParams splits ";a=1; b="x;y"" at the semicolons outside quotes.
func splitParams(s string) []string {
	var out []string
	inQuote, start := false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote && c == '\\':
			i++
		case inQuote:
			inQuote = c != '"'
		case c == '"':
			inQuote = true
		case c == ';':
			if p := strings.TrimSpace(s[start:i]); p != "" {
				out = append(out, p)
			}
			start = i + 1
		}
	}
	if p := strings.TrimSpace(s[min(start, len(s)):]); p != "" {
		out = append(out, p)
	}
	return out
}

// unquote removes the quotes of a quoted-string and its backslash escapes;
// a token is returned as it is.
func unquote(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return strings.Trim(v, `"`)
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		if v[i] == '\\' && i+1 < len(v)-1 {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
