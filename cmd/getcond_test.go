package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/servertest"
)

// recorder keeps the headers of every request an origin saw.
type recorder struct {
	mu   sync.Mutex
	reqs []http.Header
}

func (r *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Header.Clone())
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	})
}

func (r *recorder) last() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reqs[len(r.reqs)-1]
}

// recordedOrigin serves files with the reference origin, recording requests.
func recordedOrigin(t *testing.T, files map[string]string, opts ...server.Option) (string, *recorder) {
	t.Helper()
	srv, err := server.New(servertest.WriteFiles(t, files), opts...)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	ts := httptest.NewServer(rec.wrap(srv.Handler()))
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts.URL, rec
}

// etagOf asks the origin for the current ETag of url.
func etagOf(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Head(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("ETag")
}

// Issue 9 item 3: -r with a cached version of the URL must ask for the
// range only (no If-None-Match or A-IM from the cache) and write the range,
// never the whole cached copy.
func TestGetRangeIgnoresCache(t *testing.T) {
	body := strings.Repeat("0123456789", 100)
	url, rec := recordedOrigin(t, map[string]string{"f.bin": body})
	url += "/f.bin"
	cacheDir := t.TempDir()
	out := filepath.Join(t.TempDir(), "f.bin")
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url); code != 0 {
		t.Fatalf("first fetch: exit %d: %s", code, errOut)
	}
	code, stdout, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-r", "10-19", url)
	if code != 0 || stdout != body[10:20] {
		t.Fatalf("-r 10-19: exit %d, stdout %d bytes %.40q, want %q: %s", code, len(stdout), stdout, body[10:20], errOut)
	}
	h := rec.last()
	if h.Get("If-None-Match") != "" || h.Get("A-IM") != "" || h.Get("Range") != "bytes=10-19" {
		t.Errorf("range request sent If-None-Match %q, A-IM %q, Range %q", h.Get("If-None-Match"), h.Get("A-IM"), h.Get("Range"))
	}
	// Several ranges, to a file: the parts, not the cached whole.
	ends := filepath.Join(t.TempDir(), "ends")
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-r", "0-1,-2", "-o", ends, url); code != 0 {
		t.Fatalf("-r 0-1,-2: exit %d: %s", code, errOut)
	}
	assertFile(t, ends, "0189")
}

// Issue 9 item 3, second half: a 304 to a range request (the user's own
// If-None-Match) is not modified: it never yields the whole cached copy.
func TestGetRangeNotModified(t *testing.T) {
	body := strings.Repeat("abcdefghij", 100)
	url, _ := recordedOrigin(t, map[string]string{"f.bin": body})
	url += "/f.bin"
	cacheDir := t.TempDir()
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", filepath.Join(t.TempDir(), "f"), url); code != 0 {
		t.Fatalf("first fetch: exit %d: %s", code, errOut)
	}
	etag := etagOf(t, url)
	code, stdout, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-r", "0-9", "-H", "If-None-Match: "+etag, url)
	if code != 0 || stdout != "" || !strings.Contains(errOut, "not modified") {
		t.Fatalf("exit %d, stdout %d bytes, stderr %q; want 0, nothing, not modified", code, len(stdout), errOut)
	}
}

// Issue 9 item 4: the user's own conditional GET. A 304 is not a body: no
// mismatch against empty content, nothing written or replaced, exit 0,
// strategy not-modified.
func TestGetOwnConditional(t *testing.T) {
	url, _ := recordedOrigin(t, map[string]string{"h.json": servertest.Hello})
	url += "/h.json"
	etag := etagOf(t, url)
	future := time.Now().Add(24 * time.Hour).UTC().Format(http.TimeFormat)
	for _, cond := range []string{"If-None-Match: " + etag, "If-Modified-Since: " + future} {
		for _, cache := range []string{"--no-cache", "--cache-dir=" + t.TempDir()} {
			code, stdout, errOut := runHdig(t, "get", cache, "-H", cond, url)
			if code != 0 || stdout != "" || !strings.Contains(errOut, "not modified") || strings.Contains(errOut, "mismatch") {
				t.Errorf("%s %s to stdout: exit %d, stdout %q, stderr %q", cond, cache, code, stdout, errOut)
			}
			dst := filepath.Join(t.TempDir(), "h.json")
			os.WriteFile(dst, []byte("the user's copy"), 0o644)
			code, v, errOut := getJSON(t, cache, "-H", cond, "-o", dst, url)
			if code != 0 || v.Status != 304 || v.Transfer.Strategy != "not-modified" || v.Verdict == "mismatch" || v.Bytes != 0 {
				t.Errorf("%s %s -o: exit %d, %+v: %s", cond, cache, code, v, errOut)
			}
			assertFile(t, dst, "the user's copy")
			assertNoFile(t, dst+".hdig-part")
		}
	}
	// --require-digest: a 304 proves no bytes (exit 3), and says what it was.
	code, stdout, errOut := runHdig(t, "get", "--require-digest", "-H", "If-None-Match: "+etag, url)
	if code != 3 || stdout != "" || !strings.Contains(errOut, "304 not modified, nothing written") {
		t.Errorf("--require-digest: exit %d, want 3, stdout %q: %s", code, stdout, errOut)
	}
	// A new FILE is not created by a 304 either.
	dst := filepath.Join(t.TempDir(), "new.json")
	if code, _, errOut := runHdig(t, "get", "-H", "If-None-Match: "+etag, "-o", dst, url); code != 0 {
		t.Errorf("-o new file: exit %d: %s", code, errOut)
	}
	assertNoFile(t, dst)
	assertNoFile(t, dst+".hdig-part")
	// A condition that does not hold gets the body, verified.
	code, stdout, errOut = runHdig(t, "get", "--no-cache", "-H", `If-None-Match: "other"`, url)
	if code != 0 || stdout != servertest.Hello || !strings.Contains(errOut, "verified") {
		t.Errorf("unmet condition: exit %d, stdout %q: %s", code, stdout, errOut)
	}
}

// A 304 still has its Content-Digest checked (it covers no content), and
// a 304 to a request that set no condition is a protocol error.
func TestGetNotModifiedChecks(t *testing.T) {
	srv := origin{status: 304, header: map[string]string{"ETag": `"v1"`, "Repr-Digest": helloSHA256, "Content-Digest": helloSHA256}}.serve(t)
	code, stdout, errOut := runHdig(t, "get", "--no-cache", "-H", `If-None-Match: "v1"`, srv.URL)
	if code != 1 || stdout != "" || !strings.Contains(errOut, "mismatch Content-Digest") {
		t.Errorf("Content-Digest of content on a 304: exit %d, stdout %q: %s", code, stdout, errOut)
	}
	srv = origin{status: 304, header: map[string]string{"ETag": `"v1"`, "Repr-Digest": helloSHA256}}.serve(t)
	dst := filepath.Join(t.TempDir(), "f")
	os.WriteFile(dst, []byte("precious"), 0o644)
	if code, _, errOut := runHdig(t, "get", "--no-cache", "-o", dst, srv.URL); code != 5 {
		t.Errorf("unasked 304: exit %d, want 5: %s", code, errOut)
	}
	assertFile(t, dst, "precious")
	// -C resumes a plain GET: the user's conditions make it something else.
	if code, _, errOut := runHdig(t, "get", "-C", "-H", `If-None-Match: "v1"`, "-o", dst, srv.URL); code != 2 {
		t.Errorf("-C with If-None-Match: exit %d, want 2: %s", code, errOut)
	}
}

// The user's --expect beside a 304 to their own conditions: with -o FILE
// the 304 keeps FILE, and FILE is what the user is left with, so it is
// compared with the expected digest (exit 1 when it differs, verified when
// it matches). It was reported ignored with exit 0 and "✔ not modified"
// whatever FILE held. To stdout (nothing written) or without FILE there is
// nothing to compare: ignored, with a warning that says so.
func TestGetOwnConditionalExpect(t *testing.T) {
	url, _ := recordedOrigin(t, map[string]string{"h.json": servertest.Hello})
	url += "/h.json"
	etag := etagOf(t, url)
	sum := sha256.Sum256([]byte(servertest.Hello))
	expect := "sha256:" + hex.EncodeToString(sum[:])
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file string // file "": FILE absent
		code       int
		verdict    string
		errWant    string
	}{
		{"FILE matches", servertest.Hello, 0, "verified", "left as it was; it matches --expect sha-256"},
		{"FILE differs", "the user's copy, gone bad", 1, "mismatch", "mismatch --expect sha-256"},
		{"no FILE", "", 0, "", "warning: --expect"}, // -w: the 304's own Content-Digest (of empty content) may match
	} {
		dst := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
		if tc.file != "" {
			os.WriteFile(dst, []byte(tc.file), 0o644)
		}
		code, stdout, errOut := runHdig(t, "get", "--no-cache", "-H", "If-None-Match: "+etag, "--expect", expect, "-o", dst, "-w", "%{verdict}", url)
		if code != tc.code || tc.verdict != "" && stdout != tc.verdict || stdout == "mismatch" && tc.code == 0 || !strings.Contains(errOut, tc.errWant) {
			t.Errorf("%s: exit %d, -w %q, stderr %q; want %d, %q, %q", tc.name, code, stdout, errOut, tc.code, tc.verdict, tc.errWant)
		}
		if tc.file != "" {
			assertFile(t, dst, tc.file)
		} else {
			assertNoFile(t, dst)
		}
		assertNoFile(t, dst+".hdig-part")
	}
	// FILE proven by the user's digest satisfies --require-digest.
	dst := filepath.Join(dir, "FILE_matches")
	if code, _, errOut := runHdig(t, "get", "--no-cache", "--require-digest", "-H", "If-None-Match: "+etag, "--expect", expect, "-o", dst, url); code != 0 {
		t.Errorf("FILE matches, --require-digest: exit %d, want 0: %s", code, errOut)
	}
	code, stdout, errOut := runHdig(t, "get", "--no-cache", "-H", "If-None-Match: "+etag, "--expect", expect, url)
	if code != 0 || stdout != "" || !strings.Contains(errOut, "warning: --expect") {
		t.Errorf("to stdout: exit %d, stdout %q, stderr %q; want 0, nothing, a warning that --expect was not compared", code, stdout, errOut)
	}
}
