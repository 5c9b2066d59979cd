package fetch

import "testing"

// RFC 3492 §7.1's samples and the IDNA labels net/http's jar keys by.
func TestPunycode(t *testing.T) {
	for in, want := range map[string]string{
		"bücher":            "bcher-kva",
		"münchen":           "mnchen-3ya",
		"例え":                "r8jz45g",
		"ü":                 "tda",
		"ليهمابتكلموشعربي؟": "egbpdaj6bu4bxfgehfvwxn",
	} {
		if got, ok := punycode(in); !ok || got != want {
			t.Errorf("punycode(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
