package cache

import (
	"iter"
	"net/http"
	"strings"
)

// Storable reports whether a response with header h may be kept as a base
// version. hdig's cache is private to its user, so private and no-cache
// (which only demand revalidation, and every delta request revalidates) do
// not stop it; no-store does, unless the RFC 3229 im directive is present
// too: "A cache that complies with the specification for the IM header, the
// A-IM header, and the 226 response-status code SHOULD ignore a no-store
// cache-directive if an im directive is present in the same response"
// (RFC 3229 §10.8.2).
func Storable(h http.Header) bool {
	var noStore, im bool
	for _, line := range h.Values("Cache-Control") {
		for d := range directives(line) {
			switch d {
			case "no-store":
				noStore = true
			case "im":
				im = true
			}
		}
	}
	return !noStore || im
}

// directives yields the lowercased directive names of one Cache-Control
// field line, one at a time, so that a line of any length costs no memory.
// Commas inside quoted arguments do not split directives.
func directives(line string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for name := range directiveArgs(line) {
			if !yield(name) {
				return
			}
		}
	}
}

// directiveArgs yields each directive's lowercased name and its argument
// (after "=", surrounding whitespace and quotes removed; "" without one).
func directiveArgs(line string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		var quoted, escaped bool
		start := 0
		for i := 0; i <= len(line); i++ {
			if i < len(line) {
				ch := line[i]
				switch {
				case escaped:
					escaped = false
					continue
				case quoted && ch == '\\':
					escaped = true
					continue
				case ch == '"':
					quoted = !quoted
					continue
				case quoted || ch != ',':
					continue
				}
			}
			d, arg := line[start:i], ""
			if eq := strings.IndexByte(d, '='); eq >= 0 {
				d, arg = d[:eq], strings.Trim(strings.TrimSpace(d[eq+1:]), `"`)
			}
			if d = strings.ToLower(strings.TrimSpace(d)); d != "" && !yield(d, arg) {
				return
			}
			start = i + 1
		}
	}
}
