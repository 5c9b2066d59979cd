package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputSameAsDumpOrJar: -D FILE or -c FILE naming -o's file (under
// any spelling) is a usage error before anything is written: the headers
// were appended to the verified body (or emptied the file before a run
// that then failed), the cookie jar replaced it, exit 0.
func TestOutputSameAsDumpOrJar(t *testing.T) {
	srv, _ := seeingOrigin(t, helloHandler)
	dir := t.TempDir()
	out := filepath.Join(dir, "f")
	for _, flags := range [][]string{{"-D", out}, {"-c", out}, {"-D", filepath.Join(dir, ".", "f")}} {
		os.WriteFile(out, []byte("mine"), 0o644)
		args := append([]string{"get", "-s", "-o", out}, flags...)
		code, _, stderr := runHdig(t, append(args, srv.URL+"/f")...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", flags, code, stderr)
		}
		assertFile(t, out, "mine")
	}
}

// TestDispositionNamesJar: -J's Content-Disposition name that is -c's
// file (not there yet: -J never replaces a file) is refused as -o's would
// be: the jar written at the end replaced the verified body, exit 0.
func TestDispositionNamesJar(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="jar.txt"`)
		helloHandler(w, r)
	})
	dir := t.TempDir()
	jar := filepath.Join(dir, "jar.txt")
	code, _, stderr := runHdig(t, "get", "-sS", "-O", "-J", "--output-dir", dir, "-c", jar, srv.URL+"/f.json")
	if code != ExitUsage || !strings.Contains(stderr, "-c") {
		t.Errorf("exit %d, want 2 naming -c: %s", code, stderr)
	}
	if b, _ := os.ReadFile(jar); strings.Contains(string(b), helloBody) || !strings.HasPrefix(string(b), "# Netscape HTTP Cookie File") {
		t.Errorf("jar.txt holds %q, want the cookie jar", b)
	}
}

// TestOutputDirClashBeforeDump: with --output-dir D, -o out is D/out: -D
// D/out is refused before -D empties it (the early clash compared "out"
// with "D/out", and only a later check refused, the file emptied).
func TestOutputDirClashBeforeDump(t *testing.T) {
	srv, _ := seeingOrigin(t, helloHandler)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.WriteFile(out, []byte("precious"), 0o644)
	code, _, stderr := runHdig(t, "get", "-sS", "--output-dir", dir, "-o", "out", "-D", out, srv.URL+"/f")
	if code != ExitUsage {
		t.Errorf("exit %d, want 2: %s", code, stderr)
	}
	assertFile(t, out, "precious")
}

// TestOutputClashThroughLinkedDir: -o link/out -c real/out, link a
// symbolic link to real and out not there yet, name one file: refused.
func TestOutputClashThroughLinkedDir(t *testing.T) {
	srv, _ := seeingOrigin(t, helloHandler)
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	code, _, stderr := runHdig(t, "get", "-sS", "-o", filepath.Join(dir, "link", "out"), "-c", filepath.Join(real, "out"), srv.URL+"/f")
	if code != ExitUsage {
		t.Errorf("exit %d, want 2: %s", code, stderr)
	}
}
