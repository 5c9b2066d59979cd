package server

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hdig/hdig/dictionary"
)

// TestDictionaryMatchFromPathAsked: a relative --dictionary pattern
// ("*.js") is advertised in Use-As-Dictionary as the client compiles it,
// against the URL it asked (RFC 9842 §2.1.1): for /x/..%2fassets/app.js
// (served as /assets/app.js) "*.js" would cover /x/*.js, not the
// directory the server matches. It is the absolute pattern then; as
// configured for a path in normal form.
func TestDictionaryMatchFromPathAsked(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "assets"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "assets", "app.js"), []byte(dictV1), 0o644))
	_, ts := start(t, root, WithDelta(newMemStore(t)), WithDictionary("*.js"))
	match := regexp.MustCompile(`match="([^"]*)"`)
	for _, c := range []struct{ target, match string }{
		{"/assets/app.js", "*.js"},
		{"/x/..%2fassets/app.js", "/assets/*.js"},
		{"/assets%2fapp.js", "/assets/*.js"},
		{"/assets/app.js", "*.js"},
	} {
		r := raw(t, ts, "GET", c.target)
		wantStatus(t, r, http.StatusOK)
		m := match.FindStringSubmatch(r.Header.Get("Use-As-Dictionary"))
		if m == nil {
			t.Fatalf("GET %s: Use-As-Dictionary %q", c.target, r.Header.Get("Use-As-Dictionary"))
		}
		if m[1] != c.match {
			t.Errorf("GET %s: match=%q, want %q", c.target, m[1], c.match)
		}
		base, err := url.Parse("http://h" + c.target)
		must(t, err)
		pat, err := dictionary.CompilePattern(m[1], base)
		must(t, err)
		for u, want := range map[string]bool{"http://h/assets/lib.js": true, "http://h/x/lib.js": false, "http://h/lib.js": false} {
			if pu, _ := url.Parse(u); pat.Match(pu) != want {
				t.Errorf("GET %s: match=%q, resolved against it, matches %s: %v, want %v", c.target, m[1], u, !want, want)
			}
		}
	}
}
