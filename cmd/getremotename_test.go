package cmd

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteNameDirectory: -O takes the URL's last path segment; a URL
// ending in "/" has an empty one (curl refuses such a URL too) and is not
// named after the directory above it.
func TestRemoteNameDirectory(t *testing.T) {
	for _, u := range []string{"http://h/dir/", "http://h/", "http://h", "http://h/a/..", "http://h/dir/?x=1", "http://h/a/%2E%2E"} {
		if name, err := remoteName(u); err == nil || !strings.Contains(err.Error(), "no file name") {
			t.Errorf("remoteName(%q) = %q, %v: want a usage error", u, name, err)
		}
	}
	for u, want := range map[string]string{"http://h/dir/f.iso": "f.iso", "http://h/f?x=/y": "f", "http://h/a%2Fb": "a%2Fb", "http://h/d/a%20b": "a b", "http://h/%2E%2E%2Fx": "%2E%2E%2Fx"} {
		if name, err := remoteName(u); err != nil || name != want {
			t.Errorf("remoteName(%q) = %q, %v: want %q", u, name, err, want)
		}
	}
}

// TestRemoteHeaderNameDirectoryURL: with -J a URL ending in "/" (a
// download endpoint) is named by Content-Disposition, as curl -OJ does;
// without a usable one nothing is named after the directory, and the
// verified bytes stay in -J's hidden file.
func TestRemoteHeaderNameDirectoryURL(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cd") == "" {
			w.Header().Set("Content-Disposition", `attachment; filename="report.json"`)
		}
		helloHandler(w, r)
	})
	dir := t.TempDir()
	code, stdout, stderr := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, "-w", "%{filename_effective}", srv.URL+"/download/")
	if code != 0 || stdout != filepath.Join(dir, "report.json") {
		t.Fatalf("-OJ on a URL ending in /: exit %d, %q, %s", code, stdout, stderr)
	}
	assertFile(t, filepath.Join(dir, "report.json"), helloBody)
	sub := t.TempDir()
	if code, _, _ := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", sub, srv.URL+"/download/?cd=no"); code != ExitUsage {
		t.Errorf("-OJ, no Content-Disposition, no name in the URL: exit %d, want 2", code)
	}
	entries, _ := os.ReadDir(sub)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".hdig-J.") {
			t.Errorf("wrote %s", e.Name())
		}
	}
	if code, _, _ := runHdig(t, "get", "-s", "-O", "--output-dir", sub, srv.URL+"/download/"); code != ExitUsage {
		t.Errorf("-O alone on a URL ending in /: exit %d, want 2", code)
	}
}

// TestRemoteHeaderNameHiddenLink: -J's hidden file is hdig's own name: a
// symbolic link someone put there (a shared directory) is not followed, so
// the download neither replaces the file it points to nor lands beside it.
func TestRemoteHeaderNameHiddenLink(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report.json"`)
		helloHandler(w, r)
	})
	dir, home := t.TempDir(), t.TempDir()
	victim := filepath.Join(home, ".bashrc")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, ".hdig-J.file")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, "-w", "%{filename_effective}", srv.URL+"/file")
	if code != 0 || stdout != filepath.Join(dir, "report.json") {
		t.Errorf("-OJ: exit %d, %q, %s", code, stdout, stderr)
	}
	assertFile(t, victim, "mine\n")
	if _, err := os.Lstat(filepath.Join(home, "report.json")); err == nil {
		t.Errorf("-J wrote %s through the link", filepath.Join(home, "report.json"))
	}
}

// TestRemoteHeaderNameHiddenForeignFile: a file at -J's hidden name that
// hdig could not have left (here a second name of another file, mode 0666)
// does not lend the download its mode: the file -J names is made as new.
func TestRemoteHeaderNameHiddenForeignFile(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report.json"`)
		helloHandler(w, r)
	})
	dir := t.TempDir()
	other := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(other, []byte("theirs\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(other, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(other, filepath.Join(dir, ".hdig-J.file")); err != nil {
		t.Skip(err)
	}
	if code, _, stderr := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, srv.URL+"/file"); code != 0 {
		t.Fatalf("-OJ: exit %d, %s", code, stderr)
	}
	assertFile(t, other, "theirs\n")
	fi, err := os.Stat(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("report.json has mode %v, taken from the file planted at -J's hidden name", fi.Mode().Perm())
	}
}

// TestRemoteHeaderNameHiddenLinkReplanted: a symbolic link put back at
// -J's hidden name after it was cleared (here while --checksum-file is
// fetched, before the download starts) is not followed either: the
// hidden name is resolved once, and then only written as itself.
func TestRemoteHeaderNameHiddenLinkReplanted(t *testing.T) {
	for _, extra := range [][]string{nil, {"--compressed"}} {
		dir, home := t.TempDir(), t.TempDir()
		victim := filepath.Join(home, ".bashrc")
		if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(helloBody))
		srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/SHA256SUMS" {
				os.Symlink(victim, filepath.Join(dir, ".hdig-J.file"))
				fmt.Fprintf(w, "%x  file\n", sum)
				return
			}
			w.Header().Set("Content-Disposition", `attachment; filename="report.json"`)
			helloHandler(w, r)
		})
		args := append([]string{"get", "-s", "-O", "-J", "--output-dir", dir, "--checksum-file", srv.URL + "/SHA256SUMS"}, extra...)
		code, _, stderr := runHdig(t, append(args, srv.URL+"/file")...)
		assertFile(t, victim, "mine\n")
		if _, err := os.Lstat(filepath.Join(home, "report.json")); err == nil {
			t.Errorf("%v: -J wrote %s through the link", extra, filepath.Join(home, "report.json"))
		}
		if code == 0 {
			assertFile(t, filepath.Join(dir, "report.json"), helloBody)
		}
		t.Logf("%v: exit %d %s", extra, code, stderr)
	}
}

// TestRemoteHeaderNameOwnSuffix: a Content-Disposition name hdig gives its
// own files (a part, a resume or zsync sidecar, their .tmp) is refused
// like any unsafe name: the origin could otherwise plant a part and a
// sidecar vouching for it beside another download, for -C to resume. The
// file takes -O's name, as curl does for a name it refuses.
func TestRemoteHeaderNameOwnSuffix(t *testing.T) {
	for _, name := range []string{"app.iso.hdig-part", "app.iso.hdig-resume", "app.iso.HDIG-RESUME", "app.iso.hdig-zsync",
		"app.iso.hdig-zsync-seed", "app.iso.hdig-resume.tmp"} {
		srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
			helloHandler(w, r)
		})
		dir := t.TempDir()
		code, stdout, stderr := runHdig(t, "get", "-O", "-J", "--output-dir", dir, "-w", "%{filename_effective}", srv.URL+"/file")
		if code != 0 || stdout != filepath.Join(dir, "file") || !strings.Contains(stderr, "no safe file name") {
			t.Errorf("%s: exit %d, %q, %s", name, code, stdout, stderr)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(strings.ToLower(e.Name()), ".hdig-") {
				t.Errorf("%s: wrote %s", name, e.Name())
			}
		}
	}
}

// A -J download that fails verification says nothing was written, not the
// scratch name (.hdig-J.NAME), which the user never chose and never sees.
func TestRemoteHeaderNameFailureNamesNoScratch(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="x.json"`)
		w.Header().Set("Repr-Digest", "sha-256=:"+strings.Repeat("A", 43)+"=:")
		w.Write([]byte("hello\n"))
	})
	dir := t.TempDir()
	code, _, stderr := runHdig(t, "get", "--no-cache", "-O", "-J", "--output-dir", dir, srv.URL+"/file")
	if code != ExitIntegrity || strings.Contains(stderr, ".hdig-J") || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("exit %d, stderr %q; want exit 1 saying nothing was written, no scratch name", code, stderr)
	}
}

// TestRemoteNameOwnSuffix: -O's name comes from the URL, which the origin
// (or a redirecting link) chooses as it does Content-Disposition's: a
// name hdig gives its own files (fetch.OwnName) is refused as -J refuses
// it, or a URL ending in f.hdig-resume would write over another
// download's sidecar (or part) in the directory. With -J such a URL has
// no file name: Content-Disposition names the file.
func TestRemoteNameOwnSuffix(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cd") != "" {
			w.Header().Set("Content-Disposition", `attachment; filename="report.json"`)
		}
		helloHandler(w, r)
	})
	for _, name := range []string{"f.hdig-resume", "f.hdig-part", "f.HDIG-ZSYNC", "f.hdig-resume.tmp"} {
		dir := t.TempDir()
		keep := filepath.Join(dir, name)
		if err := os.WriteFile(keep, []byte("another download's"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runHdig(t, "get", "-O", "--output-dir", dir, srv.URL+"/d/"+name)
		if code != ExitUsage || !strings.Contains(stderr, ".hdig-") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("-O %s: exit %d, stderr %q; want %d, one line naming .hdig-", name, code, stderr, ExitUsage)
		}
		if b, _ := os.ReadFile(keep); string(b) != "another download's" {
			t.Errorf("-O %s: the file there now holds %q", name, b)
		}
		code, stdout, stderr := runHdig(t, "get", "-O", "-J", "--output-dir", dir, "-w", "%{filename_effective}", srv.URL+"/d/"+name+"?cd=1")
		if code != 0 || stdout != filepath.Join(dir, "report.json") {
			t.Errorf("-OJ %s: exit %d, %q, %s; want report.json", name, code, stdout, stderr)
		}
		if b, _ := os.ReadFile(keep); string(b) != "another download's" {
			t.Errorf("-OJ %s: the file there now holds %q", name, b)
		}
	}
}

// TestRemoteNameControlCharacters: -O decodes the URL's last segment, but
// a segment that decodes to a control or format character (%0A, an ESC
// sequence, %00, U+202E) is kept as the URL spells it, as a decoded "/"
// is: such a name (a file named across lines, one that rewrites the
// terminal when listed or printed, an lstat error quoting a raw NUL) is
// no name the URL showed, and -J drops the same characters
// (dispositionName). curl -O never decodes at all.
func TestRemoteNameControlCharacters(t *testing.T) {
	for u, want := range map[string]string{
		"http://h/a%0Ab":             "a%0Ab",
		"http://h/%1B%5B31mred":      "%1B%5B31mred",
		"http://h/a%00b":             "a%00b",
		"http://h/a%C2%85b":          "a%C2%85b",
		"http://h/x%E2%80%AEfdp.exe": "x%E2%80%AEfdp.exe",
		"http://h/a%20b%C3%A9":       "a bé",
	} {
		if name, err := remoteName(u); err != nil || name != want {
			t.Errorf("remoteName(%q) = %q, %v: want %q", u, name, err, want)
		}
	}
}
