package dictionary

import (
	"net/url"
	"testing"
)

// TestAbsolutePattern: a relative pattern made absolute against its base
// compiles, against another base of the origin, to what the relative one
// did against its own.
func TestAbsolutePattern(t *testing.T) {
	base, _ := url.Parse("http://h/a(b)/app.js")
	other, _ := url.Parse("http://h/x/y.js")
	for _, c := range []struct{ match, abs string }{
		{"*.js", `/a\(b\)/*.js`},
		{"?v=*", `/a\(b\)/app.js?v=*`},
		{"/s/*", "/s/*"},
		{"http://h/s/*", "http://h/s/*"},
	} {
		abs := AbsolutePattern(c.match, base)
		if abs != c.abs {
			t.Errorf("AbsolutePattern(%q) = %q, want %q", c.match, abs, c.abs)
		}
		rel, err1 := CompilePattern(c.match, base)
		got, err2 := CompilePattern(abs, other)
		if err1 != nil || err2 != nil {
			t.Fatalf("%q: %v, %v", c.match, err1, err2)
		}
		for _, u := range []string{"http://h/a(b)/lib.js", "http://h/a(b)/app.js?v=2", "http://h/x/lib.js", "http://h/s/t"} {
			pu, _ := url.Parse(u)
			if rel.Match(pu) != got.Match(pu) {
				t.Errorf("%q: %s matches %v, absolute %q: %v", c.match, u, rel.Match(pu), abs, got.Match(pu))
			}
		}
	}
}
