package httpfield

import "testing"

// TestRedact: a password never reaches output, even in a URL that does not
// parse (an invalid escape, a bad port): url.Parse's error and a raw-text
// fallback both carried it before.
func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://u:secret@h/a", "http://u:xxxxx@h/a"},
		{"http://u@h/a", "http://u@h/a"},
		{"http://h/a?x=1", "http://h/a?x=1"},
		{"http://u:secret@h/%zz", "http://u:xxxxx@h/%zz"},
		{"http://u:secret@h:99999999999/a", "http://u:xxxxx@h:99999999999/a"},
		{"https://u:se:cr@et@h/%zz?q", "https://u:xxxxx@h/%zz?q"},
		{"u:secret@h/%zz", "u:xxxxx@h/%zz"},
		{"http://h/%zz@x", "http://h/%zz@x"},
		{"http://h/%zz:pw@x", "http://h/%zz:pw@x"},
		{"u:secret@h/a", "u:xxxxx@h/a"},
		{"mailto:a@b", "mailto:xxxxx@b"},
		// A password holding "/", "?" or "#" (not escaped) ends the
		// authority early, and the URL does not parse: still redacted.
		{"http://u:pa/ss@h/a", "http://u:xxxxx@h/a"},
		{"http://u:pa#ss@h/a", "http://u:xxxxx@h/a"},
		{"http://u:pa?ss@h/a", "http://u:xxxxx@h/a"},
		{"http://h:8080/%zz@x", "http://h:8080/%zz@x"},
		{"http://[::1]/%zz@x", "http://[::1]/%zz@x"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
