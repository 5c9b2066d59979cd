package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
)

// versionText is a deterministic text; version v edits a few lines.
func versionText(v int) []byte {
	var b bytes.Buffer
	for i := 0; i < 5000; i++ {
		x := i
		if v > 1 && i%331 == 5 {
			x = i*13 + v
		}
		fmt.Fprintf(&b, "const value%d = %d; // line %d\n", i, x, i)
	}
	return b.Bytes()
}

// deltaOrigin serves dir with the delta step, through wrap if given.
func deltaOrigin(t *testing.T, dir string, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	h, err := delta.New(t.TempDir(), delta.DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(dir, server.WithDelta(h))
	if err != nil {
		t.Fatal(err)
	}
	var handler http.Handler = srv.Handler()
	if wrap != nil {
		handler = wrap(handler)
	}
	ts := httptest.NewServer(handler)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts.URL
}

func getJSON(t *testing.T, args ...string) (int, jsonVerdict, string) {
	t.Helper()
	code, out, errOut := runHdig(t, append([]string{"get", "--json"}, args...)...)
	var v jsonVerdict
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("bad JSON %q (%v); stderr: %s", out, err, errOut)
	}
	return code, v, errOut
}

func TestGetDeltaAcrossVersions(t *testing.T) {
	site, cacheDir := t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	out := filepath.Join(t.TempDir(), "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	url := deltaOrigin(t, site, nil) + "/app.js"

	code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, url)
	if code != 0 || v.Status != 200 || v.Transfer.Strategy != "full" {
		t.Fatalf("first fetch: exit %d, %+v: %s", code, v, errOut)
	}
	os.WriteFile(file, versionText(2), 0o644)
	code, v, errOut = getJSON(t, "--cache-dir", cacheDir, "-o", out, url)
	if code != 0 || v.Status != 226 || v.Transfer.Strategy != "delta" || v.Verdict != "verified" {
		t.Fatalf("second fetch: exit %d, %+v: %s", code, v, errOut)
	}
	if v.Transfer.Received*20 > v.Bytes || strings.Join(v.Transfer.IM, ",") != "vcdiff" || v.Transfer.DeltaBase == "" {
		t.Errorf("226 received %d of %d bytes, IM %v, base %q", v.Transfer.Received, v.Bytes, v.Transfer.IM, v.Transfer.DeltaBase)
	}
	assertFile(t, out, string(versionText(2)))

	before, _ := os.Stat(out)
	code, v, errOut = getJSON(t, "--cache-dir", cacheDir, "-o", out, url)
	if code != 0 || v.Transfer.Strategy != "not-modified" || v.Transfer.Received != 0 || v.Bytes != int64(len(versionText(2))) || v.Verdict != "verified" {
		t.Fatalf("third fetch: exit %d, %+v: %s", code, v, errOut)
	}
	assertFile(t, out, string(versionText(2)))
	// The 304 is settled in place: the file is not copied onto itself.
	after, _ := os.Stat(out)
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("a 304 for the linked -o file rewrote it")
	}
	assertNoFile(t, out+".hdig-part")

	// --no-delta asks for the whole.
	code, v, _ = getJSON(t, "--cache-dir", cacheDir, "--no-delta", "-o", out, url)
	if code != 0 || v.Status != 200 {
		t.Errorf("--no-delta: exit %d, status %d", code, v.Status)
	}
}

func TestGetDeltaToStdout(t *testing.T) {
	site, cacheDir := t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	url := deltaOrigin(t, site, nil) + "/app.js"
	if code, out, errOut := runHdig(t, "get", "--cache-dir", cacheDir, url); code != 0 || out != string(versionText(1)) {
		t.Fatalf("first: exit %d: %s", code, errOut)
	}
	os.WriteFile(file, versionText(3), 0o644)
	code, out, errOut := runHdig(t, "get", "--cache-dir", cacheDir, url)
	if code != 0 || out != string(versionText(3)) || !strings.Contains(errOut, "226 vcdiff") {
		t.Fatalf("second: exit %d, %d bytes: %s", code, len(out), errOut)
	}
}

// mangle226 changes 226 responses: the body, or the Delta-Base header.
type mangle226 struct {
	http.ResponseWriter
	flip, rebase bool
	is226        bool
}

func (m *mangle226) WriteHeader(code int) {
	if code == http.StatusIMUsed {
		m.is226 = true
		if m.rebase {
			m.Header().Set("Delta-Base", `"sha256-not-a-version-we-hold"`)
		}
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *mangle226) Write(p []byte) (int, error) {
	if m.is226 && m.flip && len(p) > 20 {
		q := append([]byte{}, p...)
		q[len(q)/2] ^= 0xff
		m.flip = false
		return m.ResponseWriter.Write(q)
	}
	return m.ResponseWriter.Write(p)
}

func TestGetDeltaFallback(t *testing.T) {
	for _, tc := range []struct {
		name         string
		flip, rebase bool
		want         string
	}{
		{"corrupt delta", true, false, "fetched in full instead"},
		{"unknown Delta-Base", false, true, "is not a version we hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, v, errOut, out := secondVersion(t, func(w http.ResponseWriter, r *http.Request, h http.Handler) {
				h.ServeHTTP(&mangle226{ResponseWriter: w, flip: tc.flip, rebase: tc.rebase}, r)
			})
			if code != 0 || v.Status != 200 || v.Verdict != "verified" {
				t.Fatalf("exit %d, %+v: %s", code, v, errOut)
			}
			if !strings.Contains(strings.Join(v.Warnings, "\n"), tc.want) || !strings.Contains(strings.Join(v.Warnings, "\n"), "fetched in full instead") {
				t.Errorf("warnings %q, want %q", v.Warnings, tc.want)
			}
			assertFile(t, out, string(versionText(2)))
		})
	}
}

// secondVersion serves versionText(1) as app.js through serve (which
// wraps the delta origin's handler), gets it into -o with a cache, then
// serves versionText(2) and gets it again with --json: its exit status,
// JSON, stderr and the output's path.
func secondVersion(t *testing.T, serve func(w http.ResponseWriter, r *http.Request, h http.Handler)) (int, jsonVerdict, string, string) {
	t.Helper()
	site, cacheDir := t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	url := deltaOrigin(t, site, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(w, r, h) })
	}) + "/app.js"
	out := filepath.Join(t.TempDir(), "app.js")
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url); code != 0 {
		t.Fatalf("first: exit %d: %s", code, errOut)
	}
	os.WriteFile(file, versionText(2), 0o644)
	code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, url)
	return code, v, errOut, out
}

// damagedCache serves versionText(1) as app.js from site, caches it with a
// first get, and flips one byte (at) of the cached blob on disk. It
// returns the URL, the cache directory, the blob's path and its bytes.
func damagedCache(t *testing.T, site string, at func(n int) int) (string, string, string, []byte) {
	t.Helper()
	cacheDir := t.TempDir()
	os.WriteFile(filepath.Join(site, "app.js"), versionText(1), 0o644)
	url := deltaOrigin(t, site, nil) + "/app.js"
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, url); code != 0 {
		t.Fatalf("first: exit %d: %s", code, errOut)
	}
	blobs, _ := filepath.Glob(filepath.Join(cacheDir, "blobs", "*", "*"))
	if len(blobs) != 1 {
		t.Fatalf("blobs = %v", blobs)
	}
	b, _ := os.ReadFile(blobs[0])
	b[at(len(b))] ^= 1
	os.WriteFile(blobs[0], b, 0o600)
	return url, cacheDir, blobs[0], b
}

func TestGetDeltaCorruptCacheEntry(t *testing.T) {
	site := t.TempDir()
	url, cacheDir, _, _ := damagedCache(t, site, func(int) int { return 100 })
	os.WriteFile(filepath.Join(site, "app.js"), versionText(2), 0o644)
	code, out, errOut := runHdig(t, "get", "--cache-dir", cacheDir, url)
	if code != 0 || out != string(versionText(2)) || !strings.Contains(errOut, "fetched in full instead") {
		t.Fatalf("exit %d, %d bytes: %s", code, len(out), errOut)
	}
}

// A 304 names a cached version whose blob was damaged on disk: the copy
// of it fails its sha-256, the version is dropped, and the whole is
// fetched; nothing damaged reaches the output.
func TestGetNotModifiedCorruptCacheEntry(t *testing.T) {
	url, cacheDir, blob, b := damagedCache(t, t.TempDir(), func(n int) int { return n - 1 })
	code, out, errOut := runHdig(t, "get", "--cache-dir", cacheDir, url)
	if code != 0 || out != string(versionText(1)) || !strings.Contains(errOut, "fetched in full instead") || !strings.Contains(errOut, "sha-256 mismatch") {
		t.Fatalf("exit %d, %d bytes: %s", code, len(out), errOut)
	}
	if got, err := os.ReadFile(blob); err == nil && bytes.Equal(got, b) {
		t.Errorf("the damaged blob is still cached")
	}
}

// With -N nothing is held back: a damaged cached version named by a 304
// is found before any of it is written, and the whole is fetched instead.
func TestGetNotModifiedCorruptCacheStreamed(t *testing.T) {
	url, cacheDir, _, _ := damagedCache(t, t.TempDir(), func(n int) int { return n - 1 })
	code, out, errOut := runHdig(t, "get", "-N", "--cache-dir", cacheDir, url)
	if code != 0 || out != string(versionText(1)) {
		t.Fatalf("exit %d, %d bytes out: %s", code, len(out), errOut)
	}
}

func TestGetDeltaSharedCache(t *testing.T) {
	site, cacheDir := t.TempDir(), t.TempDir()
	for i := 0; i < 4; i++ {
		os.WriteFile(filepath.Join(site, fmt.Sprintf("f%d.js", i)), versionText(1), 0o644)
	}
	base := deltaOrigin(t, site, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for round := 0; round < 2; round++ {
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, fmt.Sprintf("%s/f%d.js", base, i)); code != 0 {
					errs <- errOut
				}
			}()
		}
		wg.Wait()
		for i := 0; i < 4; i++ {
			os.WriteFile(filepath.Join(site, fmt.Sprintf("f%d.js", i)), versionText(2+round), 0o644)
		}
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	code, out, _ := runHdig(t, "cache", "ls", "--cache-dir", cacheDir)
	if code != 0 || strings.Count(out, "\n") != 8 {
		t.Errorf("cache ls: exit %d:\n%s", code, out)
	}
}

// TestGetDeltaFallbackFails: a corrupt 226 and a full refetch that fails
// too is exit 5, and the old output file stays as it was.
func TestGetDeltaFallbackFails(t *testing.T) {
	site, cacheDir := t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	var broken atomic.Bool
	url := deltaOrigin(t, site, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if broken.Load() && r.Header.Get("A-IM") == "" {
				http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(&mangle226{ResponseWriter: w, flip: true}, r)
		})
	}) + "/app.js"
	out := filepath.Join(t.TempDir(), "app.js")
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url); code != 0 {
		t.Fatalf("first: exit %d: %s", code, errOut)
	}
	os.WriteFile(file, versionText(2), 0o644)
	broken.Store(true)
	code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url)
	if code != ExitProtocol || !strings.Contains(errOut, "the full refetch failed") {
		t.Fatalf("exit %d, want 5: %s", code, errOut)
	}
	assertFile(t, out, string(versionText(1)))
}

// TestGetDeltaRefusedCoding: "vcdiff;q=0.0" in --im says vcdiff is not
// acceptable (RFC 9110 §12.4.2), as the origin reads it; a 226 vcdiff is
// then a delta the client never accepted, refused and fetched in full.
func TestGetDeltaRefusedCoding(t *testing.T) {
	for _, im := range []string{"gdiff, vcdiff;q=0", "gdiff, vcdiff;q=0.0", "gdiff, vcdiff; Q=0.000", "gdiff, vcdiff;q=0;x=1"} {
		t.Run(im, func(t *testing.T) {
			site, cacheDir := t.TempDir(), t.TempDir()
			file := filepath.Join(site, "app.js")
			os.WriteFile(file, versionText(1), 0o644)
			// The origin is made to ignore the client's qvalues.
			url := deltaOrigin(t, site, func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("A-IM") != "" {
						r.Header.Set("A-IM", "vcdiff")
					}
					h.ServeHTTP(w, r)
				})
			}) + "/app.js"
			out := filepath.Join(t.TempDir(), "app.js")
			if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url); code != 0 {
				t.Fatalf("first: exit %d: %s", code, errOut)
			}
			os.WriteFile(file, versionText(2), 0o644)
			code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "--im", im, "-o", out, url)
			if code != 0 || v.Status != 200 || v.Verdict != "verified" {
				t.Fatalf("exit %d, %+v: %s", code, v, errOut)
			}
			if w := strings.Join(v.Warnings, "\n"); !strings.Contains(w, "IM vcdiff was not in our A-IM") {
				t.Errorf("warnings %q, want the 226 vcdiff refused", v.Warnings)
			}
			assertFile(t, out, string(versionText(2)))
		})
	}
	for _, im := range []string{"", "vcdiff;q=0", "vcdiff;q=0.0, gdiff;q=0"} {
		if code, _, errOut := runHdig(t, "get", "--im", im, "http://127.0.0.1:1/"); code != ExitUsage || !strings.Contains(errOut, "no acceptable instance manipulation") {
			t.Errorf("--im %q: exit %d, want 2: %s", im, code, errOut)
		}
	}
}
