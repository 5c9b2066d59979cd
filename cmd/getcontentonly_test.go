package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/servertest"
)

// contentOnlyWriter drops the fields about the whole representation from
// a response, so that the only digest it carries is Content-Digest (an
// origin with a Content-Digest module and no Repr-Digest).
type contentOnlyWriter struct{ http.ResponseWriter }

func (w contentOnlyWriter) strip() {
	for _, k := range []string{"Repr-Digest", "Digest", "Unencoded-Digest"} {
		w.Header().Del(k)
	}
}
func (w contentOnlyWriter) WriteHeader(code int) { w.strip(); w.ResponseWriter.WriteHeader(code) }
func (w contentOnlyWriter) Write(b []byte) (int, error) {
	w.strip()
	return w.ResponseWriter.Write(b)
}
func (w contentOnlyWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func contentOnlyOrigin(t *testing.T, files map[string]string, opts ...server.Option) *httptest.Server {
	t.Helper()
	s, err := server.New(servertest.WriteFiles(t, files), opts...)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(contentOnlyWriter{w}, r)
	}))
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts
}

// A full 200 whose only digest is a Content-Digest of its content, the
// whole representation: verified, and --require-digest is met, whatever
// the path the body takes (stdout, -o, pieces, --compressed, the cache).
func TestGetContentDigestOnlyVerified(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<18) // 4 MiB
	srv := contentOnlyOrigin(t, map[string]string{"small.txt": "hello world\n", "big.bin": big, "big.txt": big})
	cache := t.TempDir()
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		args  []string
		plain string // the verdict without --require-digest
	}{
		{"stdout", []string{"--no-cache", srv.URL + "/small.txt"}, ""},
		{"stdout big", []string{"--no-cache", srv.URL + "/big.bin"}, ""},
		{"stdout parallel", []string{"--no-cache", "--parallel", "4", srv.URL + "/big.bin"}, ""},
		{"-o", []string{"--no-cache", "-o", filepath.Join(dir, "a"), srv.URL + "/small.txt"}, ""},
		{"-o big", []string{"--no-cache", "-o", filepath.Join(dir, "b"), srv.URL + "/big.bin"}, ""},
		{"-o parallel", []string{"--no-cache", "--parallel", "4", "-o", filepath.Join(dir, "c"), srv.URL + "/big.bin"}, ""},
		{"compressed", []string{"--no-cache", "--compressed", srv.URL + "/big.txt"}, ""},
		{"compressed -o", []string{"--no-cache", "--compressed", "-o", filepath.Join(dir, "d"), srv.URL + "/big.txt"}, ""},
		{"cache 1", []string{"--cache-dir", cache, "-o", filepath.Join(dir, "e"), srv.URL + "/big.bin"}, ""},
		{"cache 2", []string{"--cache-dir", cache, "-o", filepath.Join(dir, "e"), srv.URL + "/big.bin"}, "unverified"},
		{"cache stdout", []string{"--cache-dir", cache, srv.URL + "/big.bin"}, "unverified"},
		{"cache other", []string{"--cache-dir", cache, "-o", filepath.Join(dir, "f"), srv.URL + "/big.bin"}, "unverified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A 304 for the cached copy carries a Content-Digest of empty
			// content: it proves nothing, and --require-digest fetches the whole.
			if tc.plain == "" {
				tc.plain = "verified"
			}
			code, out, errOut := runHdig(t, append([]string{"get", "-w", "\n%{verdict}\n"}, tc.args...)...)
			if code != 0 || !strings.HasSuffix(out, "\n"+tc.plain+"\n") {
				t.Errorf("exit %d, verdict %q, stderr %q", code, out[max(0, len(out)-20):], errOut)
			}
			if strings.Contains(errOut, "rebuilt") { // a 304 rebuilds nothing
				t.Errorf("stderr %q speaks of rebuilt bytes; nothing was rebuilt", errOut)
			}
			code, out, errOut = runHdig(t, append([]string{"get", "--require-digest", "-w", "\n%{verdict}\n"}, tc.args...)...)
			if code != 0 || !strings.HasSuffix(out, "\nverified\n") {
				t.Errorf("--require-digest: exit %d, verdict %q, stderr %q", code, out[max(0, len(out)-20):], errOut)
			}
		})
	}
}

// A 226 whose only digest is the delta's Content-Digest proves nothing
// of the rebuilt instance: unverified. Under --require-digest that is no
// reason to give up (exit 3) when a full 200 can be proven by its
// Content-Digest: the delta was hdig's choice, and it falls back to the
// whole as it does for a 304 the cached copy cannot be proven by.
func TestGetContentDigestOnlyDelta(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		verdict  string
		strategy string
	}{{nil, "unverified", "delta"}, {[]string{"--require-digest"}, "verified", "full"}} {
		site, cacheDir := t.TempDir(), t.TempDir()
		file := filepath.Join(site, "app.js")
		os.WriteFile(file, versionText(1), 0o644)
		url := deltaOrigin(t, site, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(contentOnlyWriter{w}, r) })
		}) + "/app.js"
		out := filepath.Join(t.TempDir(), "app.js")
		if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url); code != 0 {
			t.Fatalf("first: exit %d: %s", code, errOut)
		}
		os.WriteFile(file, versionText(2), 0o644)
		code, v, errOut := getJSON(t, append([]string{"--cache-dir", cacheDir, "-o", out, url}, tc.args...)...)
		if code != 0 || v.Verdict != tc.verdict || v.Transfer.Strategy != tc.strategy {
			t.Errorf("%v: exit %d, verdict %s, strategy %s; want exit 0, %s, %s: %s", tc.args, code, v.Verdict, v.Transfer.Strategy, tc.verdict, tc.strategy, errOut)
			continue
		}
		assertFile(t, out, string(versionText(2)))
	}
}
