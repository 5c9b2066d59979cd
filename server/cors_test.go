package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

const allowedOrigin = "http://localhost:8000"

// fieldList splits the comma-separated values of name into a list.
func fieldList(h http.Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func TestCORSAllowedOriginReadsDigests(t *testing.T) {
	_, ts := start(t, fixture(t), WithCORS([]string{"https://example.org", allowedOrigin}))
	r := raw(t, ts, "GET", "/hello.json", "Origin: "+allowedOrigin)
	wantStatus(t, r, 200)
	wantHeader(t, r, "Access-Control-Allow-Origin", allowedOrigin)
	wantHeader(t, r, "Repr-Digest", helloRepr)
	exposed := fieldList(r.Header, "Access-Control-Expose-Headers")
	for _, f := range []string{"Repr-Digest", "Content-Digest", "Unencoded-Digest", "ETag", "Use-As-Dictionary",
		"Signature", "Signature-Input", "Content-Range", "Accept-Ranges"} {
		if !slices.Contains(exposed, f) {
			t.Errorf("Access-Control-Expose-Headers: want %s among them, got %q", f, exposed)
		}
	}
	if vary := fieldList(r.Header, "Vary"); !slices.Contains(vary, "Origin") {
		t.Errorf("Vary: want Origin (the answer depends on it), got %q", vary)
	}
}

func TestCORSOtherOriginGetsNothing(t *testing.T) {
	_, ts := start(t, fixture(t), WithCORS([]string{allowedOrigin}), WithWritable())
	for _, r := range []*rawResponse{
		raw(t, ts, "GET", "/hello.json", "Origin: http://evil.example"),
		raw(t, ts, "GET", "/hello.json"),
		raw(t, ts, "OPTIONS", "/up.txt", "Origin: http://evil.example", "Access-Control-Request-Method: PUT"),
	} {
		for k := range r.Header {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s %s: want no CORS field for an origin not allowed, got %s: %s", r.Request.Method, r.Request.URL, k, r.Header.Get(k))
			}
		}
		if vary := fieldList(r.Header, "Vary"); !slices.Contains(vary, "Origin") {
			t.Errorf("Vary: want Origin on every answer, got %q", vary)
		}
	}
}

func TestCORSPreflightAllowsDigestUploads(t *testing.T) {
	_, ts := start(t, fixture(t), WithCORS([]string{allowedOrigin}), WithWritable())
	r := raw(t, ts, "OPTIONS", "/up.txt", "Origin: "+allowedOrigin,
		"Access-Control-Request-Method: PUT",
		"Access-Control-Request-Headers: content-digest,content-type,repr-digest,want-repr-digest")
	wantStatus(t, r, http.StatusNoContent)
	wantHeader(t, r, "Access-Control-Allow-Origin", allowedOrigin)
	if m := fieldList(r.Header, "Access-Control-Allow-Methods"); !slices.Contains(m, "PUT") || !slices.Contains(m, "GET") {
		t.Errorf("Access-Control-Allow-Methods: want GET and PUT, got %q", m)
	}
	allowed := fieldList(r.Header, "Access-Control-Allow-Headers")
	for _, f := range []string{"Content-Digest", "Repr-Digest", "Want-Content-Digest", "Want-Repr-Digest", "Content-Type", "Range", "If-Match"} {
		if !slices.Contains(allowed, f) {
			t.Errorf("Access-Control-Allow-Headers: want %s, got %q", f, allowed)
		}
	}
	if r.Header.Get("Access-Control-Max-Age") == "" {
		t.Error("Access-Control-Max-Age: want a lifetime for the preflight, got none")
	}
}

// A read-only origin's preflight does not offer PUT.
func TestCORSPreflightReadOnly(t *testing.T) {
	_, ts := start(t, fixture(t), WithCORS([]string{"*"}))
	r := raw(t, ts, "OPTIONS", "/hello.json", "Origin: http://a.example", "Access-Control-Request-Method: PUT")
	wantStatus(t, r, http.StatusNoContent)
	wantHeader(t, r, "Access-Control-Allow-Origin", "*")
	if m := fieldList(r.Header, "Access-Control-Allow-Methods"); slices.Contains(m, "PUT") {
		t.Errorf("Access-Control-Allow-Methods of a read-only origin: want no PUT, got %q", m)
	}
}

// A refused upload's problem answer is readable by the script that sent it
// and keeps Vary: Origin.
func TestCORSProblemKeepsFields(t *testing.T) {
	_, ts := start(t, fixture(t), WithCORS([]string{allowedOrigin}), WithWritable())
	body := "new content\n"
	req := "PUT /up.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\nOrigin: " + allowedOrigin +
		"\r\nContent-Length: 12\r\nContent-Digest: " + emptySHA + "\r\n\r\n" + body
	r := rawBytes(t, ts, "PUT", []byte(req))
	wantStatus(t, r, http.StatusBadRequest)
	wantHeader(t, r, "Access-Control-Allow-Origin", allowedOrigin)
	if vary := fieldList(r.Header, "Vary"); !slices.Contains(vary, "Origin") {
		t.Errorf("Vary of a problem answer: want Origin, got %q", vary)
	}
}

func TestCORSStarWithoutOrigin(t *testing.T) {
	_, ts := start(t, fixture(t), WithCORS([]string{"*"}))
	r := raw(t, ts, "GET", "/hello.json")
	wantHeader(t, r, "Access-Control-Allow-Origin", "*")
	if vary := fieldList(r.Header, "Vary"); slices.Contains(vary, "Origin") {
		t.Errorf("Vary with *: want no Origin (the answer is the same for all), got %q", vary)
	}
}

func TestCORSOrigins(t *testing.T) {
	good := map[string]string{
		"https://Example.ORG":      "https://example.org",
		"https://example.org:443/": "https://example.org",
		"http://localhost:8000":    "http://localhost:8000",
		"http://[::1]:80":          "http://[::1]",
		" http://127.0.0.1:9 ":     "http://127.0.0.1:9",
	}
	for in, want := range good {
		got, err := normalizeOrigin(strings.TrimSpace(in))
		if err != nil || got != want {
			t.Errorf("normalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range [][]string{{"example.org"}, {"ftp://x"}, {"https://x/path"}, {"https://u@x"},
		{"null"}, {}, {"*", "https://x"}, {"https://x?q"}} {
		if _, err := parseCORS(bad); err == nil {
			t.Errorf("parseCORS(%q): want an error, got none", bad)
		} else if !strings.Contains(err.Error(), "want") {
			t.Errorf("parseCORS(%q): the error should say what is wanted: %v", bad, err)
		}
	}
}
