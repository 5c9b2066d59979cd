package zsync

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/hdig/hdig/httpfield"
)

// MediaType is the media type of a control file in a Link header.
const MediaType = "application/x-zsync"

// ControlLink returns the URI reference of the first link in the Link
// field values (RFC 8288, read by httpfield.ParseLinks) with rel
// "describedby" and type MediaType, or "" when there is none. Malformed
// links are passed over.
func ControlLink(values []string) string {
	for _, l := range httpfield.ParseLinks(values) {
		if l.HasRel("describedby") && strings.EqualFold(l.Params["type"], MediaType) {
			return l.Target
		}
	}
	return ""
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
