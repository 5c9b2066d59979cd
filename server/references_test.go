package server

import (
	"net/url"
	"regexp"
	"testing"
)

// resolveAsked resolves ref against the URL a client asked for, as the client
// does (RFC 3986 §5), and returns the path it names, escaped.
func resolveAsked(t *testing.T, target, ref string) string {
	t.Helper()
	base, err := url.Parse("http://h" + target)
	must(t, err)
	r, err := url.Parse(ref)
	must(t, err)
	return base.ResolveReference(r).EscapedPath()
}

// linkTarget is the URI reference of a Link field value.
var linkTarget = regexp.MustCompile(`^<([^>]*)>`)

// TestReferencesResolveFromPathAsked: the relative references of a response
// (the zsync Link, a listing's links) are resolved by the client against
// the URL it asked for, not the path the server served after removing dot
// segments: "/sub/..%2fhello.json" is hello.json, but "hello.json.zsync"
// resolves against it to /sub/hello.json.zsync. They name the resource
// meant whatever form was asked, and stay as they were for a path in
// normal form.
func TestReferencesResolveFromPathAsked(t *testing.T) {
	_, ts := start(t, fixture(t))
	for _, c := range []struct{ target, link, names string }{
		{"/hello.json", "hello.json.zsync", "/hello.json.zsync"},
		{"/sub/a.txt", "a.txt.zsync", "/sub/a.txt.zsync"},
		{"/sub/..%2fhello.json", "/hello.json.zsync", "/hello.json.zsync"},
		{"/sub/%2e%2e/hello.json", "/hello.json.zsync", "/hello.json.zsync"},
		{"/sub//../hello.json", "/hello.json.zsync", "/hello.json.zsync"},
		{"//hello.json", "/hello.json.zsync", "/hello.json.zsync"},
		{"/sub%2fa.txt", "/sub/a.txt.zsync", "/sub/a.txt.zsync"},
		{"/x/..%2fsub/./a.txt", "/sub/a.txt.zsync", "/sub/a.txt.zsync"},
	} {
		r := raw(t, ts, "GET", c.target)
		wantStatus(t, r, 200)
		m := linkTarget.FindStringSubmatch(r.Header.Get("Link"))
		if m == nil {
			t.Fatalf("GET %s: Link %q", c.target, r.Header.Get("Link"))
		}
		if m[1] != c.link {
			t.Errorf("GET %s: Link <%s>, want <%s>", c.target, m[1], c.link)
		}
		if p := resolveAsked(t, c.target, m[1]); p != c.names {
			t.Errorf("GET %s: Link <%s> resolves to %s, want %s", c.target, m[1], p, c.names)
		}
	}
	href := regexp.MustCompile(`href="([^"]*a\.txt)"`)
	for _, c := range []struct{ target, href string }{
		{"/sub/", "a.txt"},
		{"/sub/a.txt/..", "/sub/a.txt"},
		{"/sub/x/..", "/sub/a.txt"},
		{"/sub/.", "a.txt"},
		{"/x/..%2fsub/", "/sub/a.txt"},
	} {
		r := raw(t, ts, "GET", c.target)
		wantStatus(t, r, 200)
		m := href.FindSubmatch(r.body)
		if m == nil {
			t.Fatalf("GET %s: no link to a.txt in\n%s", c.target, r.body)
		}
		if string(m[1]) != c.href {
			t.Errorf("GET %s: href %q, want %q", c.target, m[1], c.href)
		}
		if p := resolveAsked(t, c.target, string(m[1])); p != "/sub/a.txt" {
			t.Errorf("GET %s: href %q resolves to %s, want /sub/a.txt", c.target, m[1], p)
		}
	}
}
