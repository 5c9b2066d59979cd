package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// What hdig remembers of origins is read bounded: a file that never ends
// (here /dev/zero) is forgotten after maxOriginsFile bytes, not read whole.
func TestReadOriginsBounded(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, originsFile)); err != nil {
		t.Skip(err)
	}
	if m := readOrigins(dir); len(m) != 0 {
		t.Errorf("read %d origins from /dev/zero, want none", len(m))
	}
}
