package check

import (
	"net/http"
	"testing"

	"github.com/hdig/hdig/server"
)

// An answer carrying Access-Control-Allow-Origin twice (a proxy adding
// the field the origin already sent) lets no page read it: the Fetch
// Standard's CORS check gets the field's combined value, "ORIGIN, ORIGIN",
// which is neither the page's origin nor "*". cors.expose must not pass it.
func TestCORSRepeatedAllowOrigin(t *testing.T) {
	const page = "http://localhost:8000"
	for _, second := range []string{page, "*"} {
		edit := func(_ *http.Request, _ *int, h http.Header, body []byte) []byte {
			if h.Get("Access-Control-Allow-Origin") != "" {
				h.Add("Access-Control-Allow-Origin", second)
			}
			return body
		}
		url := newOrigin(t, rewrite(edit), server.WithCORS([]string{page}))
		got := corsResult(auditURL(t, url+"/doc.txt", Options{Origin: page}))
		if got.Status != Warn {
			t.Errorf("Access-Control-Allow-Origin: %s and %s: cors.expose = %s %q, want warn: the browser refuses the response", page, second, got.Status, got.Message)
		}
	}
}
