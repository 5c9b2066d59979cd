package zsync

import (
	"fmt"
	"net/url"
	"strings"
)

// MediaType is the media type of a control file in a Link header.
const MediaType = "application/x-zsync"

// maxLinkValues bounds the Link field lines looked at.
const maxLinkValues = 64

// ControlLink returns the URI reference of the first link in the Link
// field values (RFC 8288) with rel "describedby" and type MediaType, or ""
// when there is none. Malformed links are passed over.
func ControlLink(values []string) string {
	for i, v := range values {
		if i == maxLinkValues {
			break
		}
		for _, link := range splitLinks(v) {
			if ref, ok := controlRef(link); ok {
				return ref
			}
		}
	}
	return ""
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

// controlRef reads one link-value: <ref>; param=value; ...
func controlRef(link string) (string, bool) {
	link = strings.TrimSpace(link)
	if !strings.HasPrefix(link, "<") {
		return "", false
	}
	end := strings.IndexByte(link, '>')
	if end < 0 {
		return "", false
	}
	ref := strings.TrimSpace(link[1:end])
	var rel, typ bool
	for _, p := range strings.Split(link[end+1:], ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		v = strings.Trim(strings.TrimSpace(v), `"`)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "rel":
			for _, r := range strings.Fields(strings.ToLower(v)) {
				rel = rel || r == "describedby"
			}
		case "type":
			typ = strings.EqualFold(v, MediaType)
		}
	}
	return ref, rel && typ && ref != ""
}

// Resolve resolves ref (a control file's Link target, its URL: line, or a
// --zsync-url) against base; the result must be http or https.
func Resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	u := b.ResolveReference(r)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("target URL %q: want http or https", u.Redacted())
	}
	return u.String(), nil
}
