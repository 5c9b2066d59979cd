package server

import (
	"regexp"
	"testing"
)

// TestControlURLResolvesFromPathAsked: the URL line of a zsync control
// file, where zsync clients fetch the file's blocks, is resolved against
// the control file's URL as asked: for "/sub/..%2fhello.json.zsync" a
// "URL: hello.json" named /sub/hello.json.
func TestControlURLResolvesFromPathAsked(t *testing.T) {
	_, ts := start(t, fixture(t))
	line := regexp.MustCompile(`(?m)^URL: (.*)$`)
	for _, c := range []struct{ target, url, names string }{
		{"/hello.json.zsync", "hello.json", "/hello.json"},
		{"/sub/..%2fhello.json.zsync", "/hello.json", "/hello.json"},
		{"/sub%2fa.txt.zsync", "/sub/a.txt", "/sub/a.txt"},
		{"/sub/a.txt.zsync", "a.txt", "/sub/a.txt"},
		{"/hello.json.zsync", "hello.json", "/hello.json"}, // after the others
	} {
		r := raw(t, ts, "GET", c.target)
		wantStatus(t, r, 200)
		m := line.FindSubmatch(r.body)
		if m == nil {
			t.Fatalf("GET %s: no URL line in\n%s", c.target, r.body)
		}
		if string(m[1]) != c.url {
			t.Errorf("GET %s: URL: %s, want %s", c.target, m[1], c.url)
		}
		if p := resolveAsked(t, c.target, string(m[1])); p != c.names {
			t.Errorf("GET %s: URL: %s resolves to %s, want %s", c.target, m[1], p, c.names)
		}
	}
}
