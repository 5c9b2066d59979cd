package check

import (
	"net/http"
	"strings"
	"testing"
)

// No check looked at Vary for a response that varies on Accept-Encoding
// (RFC 9110 §12.5.5): one coded for Accept-Encoding: gzip, br, … and in no
// coding for identity, with no Vary: Accept-Encoding, lets a cache serve
// the coded one to a client that accepts no coding. encoding.vary warns;
// Vary: * counts.
func TestEncodingVary(t *testing.T) {
	for vary, want := range map[string]Status{"": Warn, "Origin": Warn, "*": Pass, "origin, ACCEPT-ENCODING": Pass} {
		edit := func(_ *http.Request, _ *int, h http.Header, body []byte) []byte {
			if h.Get("Content-Encoding") != "" {
				h.Set("Vary", vary)
				if vary == "" {
					h.Del("Vary")
				}
			}
			return body
		}
		got := result(auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{}), "encoding.vary")
		if got.Status != want || want == Warn && !strings.Contains(got.Message, "want Vary: Accept-Encoding") {
			t.Errorf("Vary %q on the coded response: encoding.vary = %s %q, want %s", vary, got.Status, got.Message, want)
		}
	}
}
