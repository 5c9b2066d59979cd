package server

import (
	"net/http"
	"testing"
)

// TestDotSegmentsAsNginx: "." and ".." segments (also percent-encoded)
// and empty segments ("//") are removed as nginx 1.22 removes them (RFC
// 3986 §5.2.4; nginx's merge_slashes), where the result stays inside the
// directory: "/./a" was 404 here and 200 there. A ".." above the root is
// still refused (nginx: 400), a dotfile still hidden, and a path whose
// last segment is "." or ".." names a directory, as one ending in "/".
func TestDotSegmentsAsNginx(t *testing.T) {
	_, ts := start(t, fixture(t))
	for _, c := range []struct {
		target string
		status int
		body   string
	}{
		{"/./hello.json", 200, hello},
		{"/%2e/hello.json", 200, hello},
		{"/%2E/hello.json", 200, hello},
		{"/sub/../hello.json", 200, hello},
		{"/sub/%2e%2e/hello.json", 200, hello},
		{"/sub/.%2e/hello.json", 200, hello},
		{"/sub/..%2fhello.json", 200, hello},
		{"/sub//a.txt", 200, "a\n"},
		{"/sub/./a.txt", 200, "a\n"},
		{"/sub//../hello.json", 200, hello},
		{"/hello.json/.", 404, ""},
		{"/sub/a.txt/..", 200, ""}, // "/sub/": the listing
		{"/../hello.json", 404, ""},
		{"/sub/../../hello.json", 404, ""},
		{"/sub/%2e%2e/%2e%2e/hello.json", 404, ""},
		{"/sub/../.secret", 404, ""},
		{"/sub/./.env", 404, ""},
	} {
		r := raw(t, ts, "GET", c.target)
		if r.StatusCode != c.status || c.body != "" && string(r.body) != c.body {
			t.Errorf("GET %s: %d %q, want %d %q", c.target, r.StatusCode, r.body, c.status, c.body)
		}
	}
	r := raw(t, ts, "GET", "/./sub")
	wantStatus(t, r, http.StatusMovedPermanently)
	wantHeader(t, r, "Location", "/sub/")
}
