package check

import (
	"net/http"
	"strings"
	"testing"
)

// Access-Control-Expose-Headers: * exposes every field to a fetch()
// without credentials only; to one with them (the kind an origin sending
// Access-Control-Allow-Credentials: true expects) it is a field named "*"
// (Fetch Standard). cors.expose counted it as naming the digest fields
// whatever the credentials; with them allowed it warns.
func TestCORSStarWithCredentials(t *testing.T) {
	const page = "http://localhost:8000"
	for _, cred := range []bool{false, true} {
		edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			h.Set("Access-Control-Allow-Origin", page)
			h.Set("Access-Control-Expose-Headers", "*")
			if cred {
				h.Set("Access-Control-Allow-Credentials", "true")
			}
			return body
		}
		got := corsResult(auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{Origin: page}))
		want := map[bool]Status{false: Pass, true: Warn}[cred]
		if got.Status != want || cred && !strings.Contains(got.Message, "not a wildcard") {
			t.Errorf("credentials %v: cors.expose = %s %q, want %s", cred, got.Status, got.Message, want)
		}
	}
}
