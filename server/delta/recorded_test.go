package delta

import (
	"os"
	"testing"
)

// TestUnchangedFileNotRecordedAgain: once a version is in the history, a
// GET of the unchanged file does no history work on disk (the index is
// neither read nor written again); a new version is recorded.
func TestUnchangedFileNotRecordedAgain(t *testing.T) {
	o := newOrigin(t, 4)
	o.put(text(3000, 1))
	o.get(nil)
	idx := o.h.indexPath("a.txt")
	if _, err := os.Stat(idx); err != nil {
		t.Fatalf("first GET did not record the version: %v", err)
	}
	if err := os.Remove(idx); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		o.get(nil)
	}
	if _, err := os.Stat(idx); err == nil {
		t.Fatal("GETs of an unchanged file rewrote its history index")
	}
	o.put(text(3000, 2))
	o.get(nil)
	if _, err := os.Stat(idx); err != nil {
		t.Fatalf("a new version was not recorded: %v", err)
	}
}
