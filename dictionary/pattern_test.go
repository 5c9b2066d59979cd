package dictionary

import (
	"errors"
	"net/url"
	"testing"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPatternMatch(t *testing.T) {
	const base = "https://example.org/app/v1/main.js?x=1"
	cases := []struct {
		match, req string
		want       bool
	}{
		{"/product/*", "https://example.org/product/shoes", true},
		{"/product/*", "https://example.org/product/", true},
		{"/product/*", "https://example.org/products", false},
		{"/product/*", "https://example.org/product/a?q=1", true}, // no "?" in the pattern: any query
		{"/app/*/main.js", "https://example.org/app/v2/main.js", true},
		{"/app/*/main.js", "https://example.org/app/a/b/main.js", true},
		{"/app/*/main.js", "https://example.org/app/main.js", false},
		{"/app/*/main.js", "https://example.org/app/v2/main.jsx", false},
		{"/app/*/main.js", "https://other.example/app/v2/main.js", false}, // cross-origin
		{"/app/*/main.js", "http://example.org/app/v2/main.js", false},    // other scheme
		{"/app/*/main.js", "https://example.org:8443/app/v2/main.js", false},
		{"/app/*/main.js", "https://example.org:443/app/v2/main.js", true}, // default port
		{"/d%C3%BCsseldorf", "https://example.org/d%C3%BCsseldorf", true},
		{"/d\u00fcsseldorf", "https://example.org/d%C3%BCsseldorf", true}, // encoded as the URL parser would
		{"/d\u00fcsseldorf", "https://example.org/D%C3%BCsseldorf", false},
		{"main.*", "https://example.org/app/v1/main.css", true}, // relative to the base's directory
		{"main.*", "https://example.org/app/v2/main.css", false},
		{"/a/*?v=*", "https://example.org/a/b?v=2", true},
		{"/a/*?v=*", "https://example.org/a/b?w=2", false},
		{"/a/*?v=*", "https://example.org/a/b", false},
		{"/a?", "https://example.org/a", true}, // an empty query pattern needs an empty query
		{"/a?", "https://example.org/a?x", false},
		{"?x=*", "https://example.org/app/v1/main.js?x=2", true}, // path from the base
		{"?x=*", "https://example.org/app/v2/main.js?x=2", false},
		{"https://example.org/s/*", "https://example.org/s/t", true},
		{"https://EXAMPLE.org:443/s/*", "https://example.org/s/t", true},
		{"https://cdn.example.org/s/*", "https://cdn.example.org/s/t", false}, // RFC 9842 §2.2.2: the dictionary's origin only
		{"https://cdn.example.org/s/*", "https://example.org/s/t", false},
		{`/a\*b`, "https://example.org/a*b", true},
		{`/a\*b`, "https://example.org/axb", false},
		{"/*.js*", "https://example.org/x.js", true},
		{"*", "https://example.org/app/v1/anything/else", true},
		{"/a:", "https://example.org/a:", true}, // ":" not starting a name is literal
		// The path as requested: dot segments removed (RFC 3986 §5.2.4),
		// "%2e" a dot as the URL parser reads it.
		{"/app/*", "https://example.org/app/../x", false},
		{"/app/*", "https://example.org/app/%2e%2E/x", false},
		{"/app/*", "https://example.org/app/.%2e/x", false},
		{"/app/*", "https://example.org/app/..", false},
		{"/app/*", "https://example.org/app/sub/../../x", false},
		{"/app/*", "https://example.org/x/../app/y", true},
		{"/app/*", "https://example.org/app/./y", true},
		{"/app/*", "https://example.org/app/%2E", true}, // "/app/"
		{"/app/*", "https://example.org/../app/y", true},
		{"/app/x", "https://example.org/app/y/../x", true},
		{"/app/x", "https://example.org/app/x/.", false}, // "/app/x/"
		{"/app/*", "https://example.org/app/a..b", true},
	}
	for _, c := range cases {
		p, err := CompilePattern(c.match, mustURL(t, base))
		if err != nil {
			t.Fatalf("%q: %v", c.match, err)
		}
		if got := p.Match(mustURL(t, c.req)); got != c.want {
			t.Errorf("%q on %s: got %v, want %v", c.match, c.req, got, c.want)
		}
	}
}

func TestPatternRejects(t *testing.T) {
	base := mustURL(t, "https://example.org/app/main.js")
	cases := map[string]error{
		"/app/(\\d+)/main.js":          ErrRegexpGroup,
		"/app/:ver/main.js":            ErrUnsupported,
		"/app/{v1}?/main.js":           ErrUnsupported,
		"/app/*+":                      ErrUnsupported,
		"/a?b?c":                       ErrUnsupported,
		"/a#frag":                      ErrUnsupported,
		"":                             ErrUnsupported,
		"https://*.example.org/a":      ErrUnsupported,
		"https://u@example.org/a":      ErrUnsupported,
		"https://example.org:(\\d+)/a": ErrUnsupported,
		"/a/../b":                      ErrUnsupported,
		"/a/./b":                       ErrUnsupported,
		"/a/%2e%2e/b":                  ErrUnsupported,
		"/a\\":                         ErrUnsupported,
	}
	for in, want := range cases {
		_, err := CompilePattern(in, base)
		if !errors.Is(err, want) {
			t.Errorf("%q: got %v, want %v", in, err, want)
		}
	}
	if _, err := CompilePattern("/a", &url.URL{Path: "/a"}); err == nil {
		t.Error("compiled against a relative base URL")
	}
	long := make([]byte, MaxMatchLen+1)
	for i := range long {
		long[i] = 'a'
	}
	if _, err := CompilePattern("/"+string(long), base); err == nil {
		t.Error("compiled an over-long pattern")
	}
}

// TestPatternBaseDotSegments: a relative pattern is resolved against the
// dictionary's URL as requested, its dot segments removed.
func TestPatternBaseDotSegments(t *testing.T) {
	p, err := CompilePattern("*.js", mustURL(t, "https://example.org/app/../lib/d.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Match(mustURL(t, "https://example.org/lib/a.js")) || p.Match(mustURL(t, "https://example.org/app/a.js")) {
		t.Error("*.js from /app/../lib/d.dat: want /lib/*.js")
	}
}

// Literal text containing ".." that is not a whole segment stays allowed.
func TestPatternDotsInsideSegments(t *testing.T) {
	base := mustURL(t, "https://example.org/")
	for _, in := range []string{"/a..b/*", "/*.min.js", "/v1.2/*", "/a/*/..x"} {
		if _, err := CompilePattern(in, base); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// TestSameOrigin: an absolute pattern naming another origin (scheme, host
// or port) is not same-origin; a path, or the base's own origin, is.
func TestSameOrigin(t *testing.T) {
	base, _ := url.Parse("https://example.org/app/v1.js")
	for match, want := range map[string]bool{
		"/app/*": true, "*.js": true, "https://example.org/app/*": true, "https://example.org:443/*": true,
		"https://other.example/app/*": false, "http://example.org/app/*": false, "https://example.org:8443/*": false,
	} {
		p, err := CompilePattern(match, base)
		if err != nil {
			t.Fatalf("%s: %v", match, err)
		}
		if p.SameOrigin() != want || p.Origin() != "https://example.org" {
			t.Errorf("%s: SameOrigin %v, Origin %s; want %v, https://example.org", match, p.SameOrigin(), p.Origin(), want)
		}
	}
}
