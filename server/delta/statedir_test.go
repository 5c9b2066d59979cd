package delta

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStateDirNotOwn: the history directory holds the versions deltas
// are made from: one anyone else can write in, or with a symbolic link
// for one of its directories, is refused.
func TestStateDirNotOwn(t *testing.T) {
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if h, err := New(shared, DefaultHistory, 0, nil); err == nil {
		h.Close()
		t.Errorf("a history directory anyone can write in: accepted")
	}
	linked := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(linked, "blobs")); err != nil {
		t.Fatal(err)
	}
	if h, err := New(linked, DefaultHistory, 0, nil); err == nil {
		h.Close()
		t.Errorf("blobs a symbolic link: accepted")
	}
	if h, err := New(t.TempDir(), DefaultHistory, 0, nil); err != nil {
		t.Errorf("a directory of the user's own: %v", err)
	} else {
		h.Close()
	}
}
