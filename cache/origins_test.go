package cache

import (
	"os"
	"path/filepath"
	"testing"
)

// What hdig remembers of origins is read bounded: a file that never ends
// (here /dev/zero) is forgotten after maxOriginsFile bytes, not read whole.
func TestReadOriginsBounded(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, OriginsFile)); err != nil {
		t.Skip(err)
	}
	if m := readOrigins(dir); len(m) != 0 {
		t.Errorf("read %d origins from /dev/zero, want none", len(m))
	}
}

// Facts are kept per origin (scheme and host), survive a rewrite, and a
// damaged file is forgotten, not fatal.
func TestNoteOrigin(t *testing.T) {
	dir := t.TempDir()
	NoteOrigin(dir, "http://a.test/x", func(f *OriginFacts) { f.NoDelta = true })
	NoteOrigin(dir, "https://b.test/y", func(f *OriginFacts) { f.Zsync = true })
	if got := Origin(dir, "http://a.test/other"); got != (OriginFacts{NoDelta: true}) {
		t.Errorf("a.test: %+v, want NoDelta", got)
	}
	if got := Origin(dir, "http://b.test/y"); got != (OriginFacts{}) {
		t.Errorf("http://b.test: %+v, want nothing (https was noted)", got)
	}
	if got := Origin(dir, "https://b.test/z"); got != (OriginFacts{Zsync: true}) {
		t.Errorf("https://b.test: %+v, want Zsync", got)
	}
	os.WriteFile(filepath.Join(dir, OriginsFile), []byte("{not json"), 0o644)
	if got := Origin(dir, "http://a.test/x"); got != (OriginFacts{}) {
		t.Errorf("damaged file: %+v, want nothing", got)
	}
	NoteOrigin(dir, "http://a.test/x", func(f *OriginFacts) { f.Delta = true })
	if got := Origin(dir, "http://a.test/x"); got != (OriginFacts{Delta: true}) {
		t.Errorf("after a damaged file: %+v, want Delta", got)
	}
}
