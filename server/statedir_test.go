package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateDirNotOwn: the state directory holds what the server trusts
// (the digest index, the variants): one anyone else can write in, or a
// digests file that is a symbolic link (or someone else's, or a second
// name of another file), is refused, not read nor appended to.
func TestStateDirNotOwn(t *testing.T) {
	dir, genuine := fixture(t), t.TempDir()
	s, err := New(dir, WithStateDir(genuine), WithSettle(0))
	must(t, err)
	s.indexPass(context.Background())
	must(t, s.Close())
	forged := filepath.Join(t.TempDir(), "digests")
	b, err := os.ReadFile(filepath.Join(genuine, indexFile))
	must(t, err)
	must(t, os.WriteFile(forged, b, 0o644))

	link := t.TempDir()
	must(t, os.Symlink(forged, filepath.Join(link, indexFile)))
	if s, err := New(dir, WithStateDir(link)); err == nil || !strings.Contains(err.Error(), indexFile) {
		if s != nil {
			s.Close()
		}
		t.Errorf("digests a symbolic link: New: %v, want an error naming it", err)
	}
	if fi, err := os.Lstat(filepath.Join(link, indexFile)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced or removed: %v", err)
	}
	second := t.TempDir()
	if err := os.Link(forged, filepath.Join(second, indexFile)); err != nil {
		t.Skip(err)
	}
	if s, err := New(dir, WithStateDir(second)); err == nil {
		s.Close()
		t.Errorf("digests a second name of another file: New accepted it")
	}
	shared := t.TempDir()
	must(t, os.Chmod(shared, 0o777))
	if s, err := New(dir, WithStateDir(shared)); err == nil || !strings.Contains(err.Error(), "writable by others") {
		if s != nil {
			s.Close()
		}
		t.Errorf("a state directory anyone can write in: New: %v, want it refused", err)
	}
	vlink := t.TempDir()
	must(t, os.Symlink(t.TempDir(), filepath.Join(vlink, "variants")))
	if s, err := New(dir, WithStateDir(vlink)); err == nil {
		s.Close()
		t.Errorf("variants a symbolic link: New accepted it")
	}
}

// TestStateDirVariantNotOwnRebuilt: a variant file in the state directory
// that is not one the server could have left (here a second name of it,
// as a snapshot by hard links or a deduplicating tool makes) is not
// served, but neither does it break every request for that coding: it is
// replaced by a variant built anew, as one removed behind the store's
// back is.
func TestStateDirVariantNotOwnRebuilt(t *testing.T) {
	dir, state := fixture(t), t.TempDir()
	_, ts := start(t, dir, WithStateDir(state))
	a := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip")
	if a.StatusCode != 200 || a.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("first GET: %d %q, want a gzip 200", a.StatusCode, a.Header.Get("Content-Encoding"))
	}
	names, err := filepath.Glob(filepath.Join(state, "variants", "*.gzip.*"))
	if err != nil || len(names) != 1 {
		t.Fatalf("variants %v (%v): want one", names, err)
	}
	if err := os.Link(names[0], filepath.Join(t.TempDir(), "snapshot")); err != nil {
		t.Skip(err)
	}
	_, ts2 := start(t, dir, WithStateDir(state))
	for i := 0; i < 2; i++ {
		b := raw(t, ts2, "GET", "/text.txt", "Accept-Encoding: gzip")
		if b.StatusCode != 200 || b.Header.Get("ETag") != a.Header.Get("ETag") && b.Header.Get("Content-Encoding") == "gzip" {
			t.Fatalf("GET %d with the variant hard-linked: %d (ETag %s), want a 200", i, b.StatusCode, b.Header.Get("ETag"))
		}
		wantHeader(t, b, "Repr-Digest", sfSHA256(b.body))
	}
}
