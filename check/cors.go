package check

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/hdig/hdig/verify"
)

// DefaultOrigin is the Origin of the cors.expose request: a name that is
// no one's (RFC 2606), so only an origin open to all ("*", or one that
// echoes any Origin) answers it; --origin names a page's origin.
const DefaultOrigin = "https://hdig-check.example"

// corsFields are the fields a script needs to check a response's bytes
// and their signature: the digests and the RFC 9421 fields.
var corsFields = []string{
	verify.ReprDigest, verify.ContentDigest, verify.UnencodedDigest, "Signature", "Signature-Input",
}

// checkCORS decides cors.expose: when the origin lets a script on
// Options.Origin read the response (Access-Control-Allow-Origin), its
// Access-Control-Expose-Headers must name every digest field it sends,
// else fetch() hides them from the script.
func (a *audit) checkCORS(ctx context.Context) {
	id := "cors.expose"
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	h.Set("Origin", a.opts.Origin)
	// A GET, as fetch() sends by default: CORS fields a HEAD alone carries
	// do not let a script read the digests of the bytes it gets.
	// Only header fields matter (CORS is decided on them): the body is not
	// read, trailer or not.
	r, err := a.do(ctx, request{label: "GET with Origin", method: http.MethodGet, header: h, headersOnly: true, noTrailer: true})
	if err != nil {
		a.s.skip(id, fmt.Sprintf("GET with Origin: %s failed: %v", a.opts.Origin, err))
		return
	}
	// Read as the Fetch Standard's CORS check gets it: the field's lines
	// combined, so one repeated (a proxy adding it again) is "A, A", which
	// no page's origin is.
	allow := strings.Join(r.header.Values("Access-Control-Allow-Origin"), ", ")
	switch {
	case allow == "":
		a.s.skip(id, fmt.Sprintf("no Access-Control-Allow-Origin for Origin: %s: scripts there cannot read the response (--origin names the page origin to test)", a.opts.Origin))
		return
	case r.status != http.StatusOK:
		a.s.warn(id, fmt.Sprintf("GET with Origin: %s returned %d %s (Access-Control-Allow-Origin: %s), where GET returned 200: a script there gets an error, not the digests", a.opts.Origin, r.status, http.StatusText(r.status), allow))
		return
	case allow != "*" && allow != a.opts.Origin:
		a.s.warn(id, fmt.Sprintf("Access-Control-Allow-Origin is %q for Origin: %s; want that origin or *: the browser refuses the response", allow, a.opts.Origin))
		return
	}
	sent := sentFields(a.full.header, r.header)
	if len(sent) == 0 {
		a.s.skip(id, fmt.Sprintf("Access-Control-Allow-Origin: %s, but the origin sends no digest field to expose", allow))
		return
	}
	exposed := exposedSet(r.header)
	// With credentials allowed, the origin expects credentialed fetch()es,
	// for which "*" is a field name, not a wildcard (Fetch Standard,
	// Access-Control-Expose-Headers): it exposes nothing to them.
	credentials := r.header.Get("Access-Control-Allow-Credentials") == "true"
	wildcard := exposed["*"] && !credentials
	var missing []string
	for _, f := range sent {
		if !wildcard && !exposed[strings.ToLower(f)] {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		why := ""
		if exposed["*"] {
			why = " (its * is a field name, not a wildcard, with Access-Control-Allow-Credentials: true)"
		}
		a.s.warn(id, fmt.Sprintf("Access-Control-Expose-Headers lacks %s%s (sent, Access-Control-Allow-Origin: %s): fetch() on %s hides them from scripts; want them exposed",
			strings.Join(missing, ", "), why, allow, a.opts.Origin))
		return
	}
	a.s.pass(id, fmt.Sprintf("%s exposed to scripts on %s", strings.Join(sent, ", "), a.opts.Origin))
}

// sentFields returns the corsFields present in any of hs.
func sentFields(hs ...http.Header) []string {
	var out []string
	for _, f := range corsFields {
		for _, h := range hs {
			if len(h.Values(f)) > 0 {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// exposedSet returns the lower-cased names of Access-Control-Expose-Headers
// ("*" included: it exposes every field to requests without credentials,
// and is a name only to those with them).
func exposedSet(h http.Header) map[string]bool {
	set := map[string]bool{}
	for _, v := range h.Values("Access-Control-Expose-Headers") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.ToLower(strings.TrimSpace(name)); name != "" {
				set[name] = true
			}
		}
	}
	return set
}
