package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirectoryRedirectStaysLocal: a directory whose URL path starts with
// "//" must not be redirected to "//host/", which browsers read as a
// network-path reference to another host.
func TestDirectoryRedirectStaysLocal(t *testing.T) {
	dir := fixture(t)
	must(t, os.MkdirAll(filepath.Join(dir, "evil.example", "a?b"), 0o755))
	_, ts := start(t, dir)
	cases := map[string]string{
		"//evil.example":      "/evil.example/",
		"///evil.example":     "/evil.example/",
		"//evil.example?x=1":  "/evil.example/?x=1",
		"/evil.example/a%3Fb": "/evil.example/a%3Fb/",
		"/sub":                "/sub/",
	}
	for target, want := range cases {
		r := raw(t, ts, "GET", target)
		wantStatus(t, r, http.StatusMovedPermanently)
		loc := r.Header.Get("Location")
		if strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") {
			t.Errorf("GET %s: Location %q names another host", target, loc)
		}
		if loc != want {
			t.Errorf("GET %s: Location %q, want %q", target, loc, want)
		}
	}
}
