//go:build unix

package cache

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenLinkedSwappedForFIFO: the file a linked version names was
// replaced by a FIFO after Versions listed it (while the request that
// offered it was out: someone with write access to -o's directory).
// Open's os.Open waited for a writer: for ever. Opened without blocking,
// the FIFO is not the file recorded, and the version is dropped.
func TestOpenLinkedSwappedForFIFO(t *testing.T) {
	c := newCache(t)
	file := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(file, []byte("v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutFile(Entry{URL: "u", ETag: `"v1"`}, file, ""); err != nil {
		t.Fatal(err)
	}
	vs, err := c.Versions("u")
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions %v, %v", vs, err)
	}
	os.Remove(file)
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Skip(err)
	}
	// The old code never returned here: go test's -timeout reports it.
	b, err := c.Open(vs[0])
	if err == nil {
		b.Close()
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open of a linked version now a FIFO: %v, want ErrCorrupt", err)
	}
}
