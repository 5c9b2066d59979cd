package server

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTraversal(t *testing.T) {
	_, ts := start(t, fixture(t))
	targets := []string{
		"/../outside.txt", "/%2e%2e/outside.txt", "/..%2foutside.txt", "/%2e%2e%2foutside.txt",
		"/sub/../../outside.txt", "/sub/%2e%2e/%2e%2e/outside.txt", "/sub/..%2f..%2foutside.txt",
		"/.secret", "/%2esecret", "/sub/.env", "/sub/%2eenv", "/link-out", "/link-abs", "/link-dot",
		"//.secret", "/sub//.env", "/..\\outside.txt", "/%00", "/hello.json%00",
	}
	for _, target := range targets {
		r := raw(t, ts, "GET", target)
		if r.StatusCode != http.StatusNotFound && r.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: status %d, want 404 or 400", target, r.StatusCode)
		}
		if bytes.Contains(r.body, []byte(secret)) {
			t.Errorf("GET %s leaked the secret", target)
		}
	}
	// Nor does a PUT write outside, or a dotfile, through the same paths
	// (dot segments resolved since 84172a2) or a link.
	dir := fixture(t)
	_, wts := start(t, dir, WithWritable())
	for _, target := range append(targets[:len(targets)-2:len(targets)-2], "/sub/../.hdig-x", "/x/..%2f.secret", "/link-out/x") {
		if r := upload(t, wts, "PUT", target, []byte("pwned\n")); r.StatusCode < 400 {
			t.Errorf("PUT %s: status %d, want a refusal", target, r.StatusCode)
		}
	}
	if got := readFile(t, filepath.Join(filepath.Dir(dir), "outside.txt")); got != secret {
		t.Errorf("outside.txt now %q", got)
	}
	// A symlink that stays inside the directory is followed.
	r := raw(t, ts, "GET", "/link-in")
	wantStatus(t, r, http.StatusOK)
	if string(r.body) != hello {
		t.Errorf("link-in body = %q", r.body)
	}
}

func TestFileName(t *testing.T) {
	ok := map[string]string{"/": ".", "/a": "a", "/a/b.txt": "a/b.txt", "/a/": "a", "/a..b": "a..b"}
	for in, want := range ok {
		if got, err := fileName(in); err != nil || got != want {
			t.Errorf("fileName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"/..", "/a/../b", "/.git/config", "/a/./b", "a", "/a//b", "/a\\b", "/a\x00"} {
		if got, err := fileName(in); err == nil {
			t.Errorf("fileName(%q) = %q, want error", in, got)
		}
	}
}

func TestDirectory(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "GET", "/sub?x=1")
	wantStatus(t, r, http.StatusMovedPermanently)
	wantHeader(t, r, "Location", "/sub/?x=1")
	r = raw(t, ts, "GET", "/sub/")
	wantStatus(t, r, http.StatusOK)
	if !bytes.Contains(r.body, []byte(`href="a.txt"`)) || bytes.Contains(r.body, []byte(".env")) {
		t.Errorf("listing = %s", r.body)
	}
	wantHeader(t, r, "Repr-Digest", sfSHA256(r.body))
	r = raw(t, ts, "GET", "/")
	if bytes.Contains(r.body, []byte("secret")) {
		t.Errorf("root listing shows a dotfile: %s", r.body)
	}
}

func TestMethods(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "OPTIONS", "/hello.json")
	wantStatus(t, r, http.StatusNoContent)
	wantHeader(t, r, "Allow", "GET, HEAD, OPTIONS")
	for _, m := range []string{"PUT", "POST", "DELETE", "PATCH"} {
		r := rawBytes(t, ts, m, []byte(m+" /hello.json HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"))
		wantStatus(t, r, http.StatusMethodNotAllowed)
		wantHeader(t, r, "Allow", "GET, HEAD, OPTIONS")
		wantHeader(t, r, "Content-Type", "application/problem+json")
	}
}

// Issue 10 item 10: a directory reached through a path with several leading
// slashes is redirected to its one-slash path, never to "//host/", which
// browsers read as another host.
func TestDirectoryRedirectStaysOnOrigin(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "evil.example", "a b"), 0o755))
	_, ts := start(t, dir)
	for target, want := range map[string]string{
		"//evil.example":       "/evil.example/",
		"///evil.example?x=1":  "/evil.example/?x=1",
		"//evil.example/a%20b": "/evil.example/a%20b/",
	} {
		r := raw(t, ts, "GET", target)
		wantStatus(t, r, http.StatusMovedPermanently)
		wantHeader(t, r, "Location", want)
	}
}

// A chain of symlinks reaches a dotfile only through its last link: a ->
// b -> .git. Each link's own target text names no dotfile, so the whole
// chain is resolved, not just the first link's text, and a relative
// target is resolved from the real directory of its link (d -> deep/er,
// deep/er/up2 -> ../../b).
func TestTraversalSymlinkChain(t *testing.T) {
	dir := fixture(t)
	must(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(secret), 0o644))
	must(t, os.Symlink(".git", filepath.Join(dir, "b")))
	must(t, os.Symlink("b", filepath.Join(dir, "a")))
	must(t, os.Symlink("link-dot", filepath.Join(dir, "c")))
	must(t, os.MkdirAll(filepath.Join(dir, "deep", "er"), 0o755))
	must(t, os.Symlink("deep/er", filepath.Join(dir, "d")))
	must(t, os.Symlink("../b", filepath.Join(dir, "deep", "er", "up")))
	must(t, os.Symlink("../../b", filepath.Join(dir, "deep", "er", "up2")))
	_, ts := start(t, dir)
	for _, target := range []string{"/a/config", "/a/", "/c", "/d/up2/config", "/deep/er/up2/config"} {
		r := raw(t, ts, "GET", target)
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", target, r.StatusCode)
		}
		if bytes.Contains(r.body, []byte(secret)) || bytes.Contains(r.body, []byte(`href="config"`)) {
			t.Errorf("GET %s leaked the dotfile: %s", target, r.body)
		}
	}
	l := raw(t, ts, "GET", "/")
	for _, n := range []string{`href="a"`, `href="c"`} {
		if strings.Contains(string(l.body), n) {
			t.Errorf("listing shows %s:\n%s", n, l.body)
		}
	}
	// Chains that stay on visible names still work.
	must(t, os.Symlink("link-in", filepath.Join(dir, "link-in2")))
	r := raw(t, ts, "GET", "/link-in2")
	wantStatus(t, r, http.StatusOK)
	if string(r.body) != hello {
		t.Errorf("link-in2 body = %q", r.body)
	}
	wantStatus(t, raw(t, ts, "GET", "/d/"), http.StatusOK)
	// Nor does an upload write through the chain into the dot directory.
	_, wts := start(t, dir, WithWritable())
	if r := upload(t, wts, "PUT", "/a/hooks-x", []byte("x")); r.StatusCode < 400 {
		t.Errorf("PUT through a -> b -> .git: %d", r.StatusCode)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git", "hooks-x")); err == nil {
		t.Error("PUT wrote into .git through a chain of links")
	}
}

// A path ending in "/" names a directory: a regular file (or a link to
// one, or a name not there) under it is 404 for GET, HEAD and PUT, as
// nginx answers, and not the file, whose relative links (the zsync Link)
// would resolve under a path that does not exist. A PUT creates nothing.
func TestTrailingSlashAfterFile(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	for _, target := range []string{"/hello.json/", "/sub/a.txt/", "/link-in/", "/hello.json.zsync/", "/hello.json//"} {
		for _, m := range []string{"GET", "HEAD"} {
			r := raw(t, ts, m, target)
			if r.StatusCode != http.StatusNotFound {
				t.Errorf("%s %s: status %d, want 404", m, target, r.StatusCode)
			}
		}
	}
	body := []byte("new content\n")
	for _, target := range []string{"/hello.json/", "/fresh.txt/"} {
		r := upload(t, ts, "PUT", target, body, "Repr-Digest: "+sfSHA256(body))
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("PUT %s: status %d, want 404", target, r.StatusCode)
		}
	}
	if got := readFile(t, filepath.Join(dir, "hello.json")); got != hello {
		t.Errorf("hello.json is now %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "fresh.txt")); err == nil {
		t.Error("PUT /fresh.txt/ created fresh.txt")
	}
	// A directory with its slash is still a directory.
	wantStatus(t, raw(t, ts, "GET", "/sub/"), http.StatusOK)
}
