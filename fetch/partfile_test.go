package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// FILE.hdig-part may already be a symbolic or hard link someone else put
// in a shared directory: a download, verified or not, unlinks that name
// and creates its own file (O_EXCL), never writing through the link into
// another file. The new FILE keeps the permissions of the FILE it
// replaces: a private file does not become readable by all.
func TestPartNeverWritesThroughLinks(t *testing.T) {
	data := genData(5000, 1)
	for _, bad := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			digest := sha256Field(data)
			if bad {
				digest = sha256Field(data[1:])
			}
			w.Header().Set("Repr-Digest", digest)
			w.Write(data)
		}))
		defer srv.Close()
		c, _ := NewClient(Options{Timeout: testStall})
		req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
		for _, link := range []string{"symlink", "hardlink"} {
			for _, how := range []string{"Download", "-C", "FileSink"} {
				dir := t.TempDir()
				path, victim := filepath.Join(dir, "f"), filepath.Join(dir, "victim")
				os.WriteFile(path, []byte("precious"), 0o600)
				os.Chmod(path, 0o600)
				os.WriteFile(victim, []byte("someone else's"), 0o644)
				var err error
				if link == "symlink" {
					err = os.Symlink(victim, path+PartSuffix)
				} else {
					err = os.Link(victim, path+PartSuffix)
				}
				if err != nil {
					t.Fatal(err)
				}
				switch how {
				case "Download", "-C":
					_, err = c.Download(context.Background(), req, path, DownloadOptions{Continue: how == "-C"})
				default:
					sink, serr := NewFileSink(path)
					if serr != nil {
						t.Fatalf("%s: NewFileSink: %v", link, serr)
					}
					_, err = c.Do(context.Background(), req, sink)
				}
				if bad != errors.Is(err, ErrMismatch) || !bad && err != nil {
					t.Errorf("bad digest %v, %s, %s: %v", bad, link, how, err)
				}
				assertFileBytes(t, victim, []byte("someone else's"))
				if bad {
					assertFileBytes(t, path, []byte("precious"))
					continue
				}
				assertFileBytes(t, path, data)
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s, %s: the new file's mode is %v, want the old file's 0600 (%v)", link, how, fi.Mode(), err)
				}
			}
		}
	}
}

// -o FILE in a shared directory (sticky, world-writable: /tmp) where
// someone else put a symbolic link: not followed (as the kernel's
// protected_symlinks refuses curl's open), so the file it points to is
// not replaced. The user's own link there is followed as before.
func TestOutputForeignLinkInSharedDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a link owned by someone else")
	}
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o755)
	if err := os.Chmod(shared, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("mine"), 0o644)
	foreign, own := filepath.Join(shared, "out"), filepath.Join(shared, "mine")
	os.Symlink(victim, foreign)
	os.Symlink(victim, own)
	if err := os.Lchown(foreign, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if out, err := ResolveOutput(foreign); err == nil {
		t.Errorf("ResolveOutput(%s) = %+v, want an error", foreign, out)
	}
	data := genData(100, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Repr-Digest", sha256Field(data))
		w.Write(data)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	if _, err := c.Download(context.Background(), req, foreign, DownloadOptions{}); err == nil {
		t.Error("Download through someone else's link: no error")
	}
	assertFileBytes(t, victim, []byte("mine"))
	if out, err := ResolveOutput(own); err != nil || out.Path != victim {
		t.Errorf("ResolveOutput(own link) = %+v, %v; want %s", out, err, victim)
	}
}

// A part is hdig's own working file: an interrupted download (-C) or zsync
// run opens it again for reading and writing. Made with the mode of a
// read-only FILE (0444), it could not be: as any user but root, every later
// -C or zsync run failed to open the part it left (EACCES) until someone
// removed it. The part keeps the replaced file's group and other bits
// (a private file stays private) and is always its owner's to read and
// write.
func TestPartOfReadOnlyFileResumable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o444)
	f, err := CreatePart(path+PartSuffix, path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, err := os.Stat(path + PartSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o644 {
		t.Fatalf("the part of a 0444 file has mode %#o: its owner cannot open it again to resume (want 0644)", got)
	}
}

// OpenPart says why a part is not resumed: a regular file with a second
// link was "not a regular file of its own ()", an empty type.
func TestOpenPartSaysWhy(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "f"+PartSuffix)
	os.WriteFile(part, []byte("x"), 0o644)
	if err := os.Link(part, filepath.Join(dir, "other")); err != nil {
		t.Skip(err)
	}
	if _, err := OpenPart(part); err == nil || !strings.Contains(err.Error(), "2 links") {
		t.Errorf("OpenPart of a file with two links: %v, want an error naming its 2 links", err)
	}
}

// TestReplaceFileTakesNoMode: a sidecar is hdig's own file, made as new:
// a link (or a file) someone put at its name does not lend it its mode. A
// world-writable target's 0666 would have the user's own sidecar, which
// -C trusts for being the user's, writable by anyone.
func TestReplaceFileTakesNoMode(t *testing.T) {
	dir := t.TempDir()
	theirs := filepath.Join(t.TempDir(), "theirs")
	if err := os.WriteFile(theirs, []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(theirs, 0o666); err != nil {
		t.Fatal(err)
	}
	side := filepath.Join(dir, "out"+SidecarSuffix)
	if err := os.Symlink(theirs, side); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceFile(side, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(side)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("sidecar is %v, want a regular file writable by its owner alone", fi.Mode())
	}
}
