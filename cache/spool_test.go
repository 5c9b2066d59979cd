package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// spooled writes data into a new spool of c, skipping where the system
// cannot make one.
func spooled(t *testing.T, c *Cache, data []byte) *os.File {
	t.Helper()
	f, err := c.Spool()
	if err != nil {
		t.Skipf("no anonymous spool here: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	return f
}

// A spool of the cache's whose bytes are verified becomes the version's
// blob itself: named, not copied, and opened (re-hashed) like any other.
// One of another size, or a file with a name, is copied.
func TestPutVerifiedNamesSpool(t *testing.T) {
	data := bytes.Repeat([]byte("spooled body "), 30_000)
	sum := sha256.Sum256(data)
	e := Entry{URL: "http://example.test/f", ETag: `"v1"`, SHA256: hex.EncodeToString(sum[:])}
	dir := t.TempDir()
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	f := spooled(t, c, data)
	if ents, _ := os.ReadDir(filepath.Join(dir, blobDir)); len(ents) != 0 {
		t.Fatalf("a spool left a name in the cache: %v", ents)
	}
	before := BlobsCopied()
	got, err := c.PutVerified(e, f, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n := BlobsCopied() - before; n != 0 {
		t.Errorf("%d bytes copied into the blob, want 0 (the spool named)", n)
	}
	sfi, _ := f.Stat()
	bfi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(blobName(got.SHA256))))
	if err != nil || !os.SameFile(sfi, bfi) {
		t.Errorf("the blob is not the spool (%v)", err)
	}
	assertOpens(t, c, got, data)

	// Anything else is copied, and opens like any version.
	named := filepath.Join(dir, "named")
	if err := os.WriteFile(named, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		open func(t *testing.T) *os.File
	}{
		{"a spool of another size", func(t *testing.T) *os.File { return spooled(t, c, append(data, "more"...)) }},
		{"an unlinked file", func(t *testing.T) *os.File { // not O_TMPFILE: cannot be named again
			f, err := os.CreateTemp(dir, "unlinked")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			os.Remove(f.Name())
			f.Write(data)
			return f
		}},
		{"a named file", func(t *testing.T) *os.File {
			f, err := os.Open(named)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := e
			e.ETag = `"` + tt.name + `"`
			before := BlobsCopied()
			got, err := c.PutVerified(e, tt.open(t), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if n := BlobsCopied() - before; n != int64(len(data)) {
				t.Errorf("%d bytes copied, want %d", n, len(data))
			}
			fi, _ := os.Stat(named)
			if bfi, _ := os.Stat(filepath.Join(dir, filepath.FromSlash(blobName(got.SHA256)))); os.SameFile(fi, bfi) {
				t.Error("a named file was linked into the cache")
			}
			assertOpens(t, c, got, data)
		})
	}
}

// A spool left unnamed (the body was not kept) leaves nothing behind.
func TestSpoolLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := spooled(t, c, []byte("never kept"))
	f.Close()
	if n, freed, err := c.GC(); err != nil || n != 0 || freed != 0 {
		t.Errorf("GC found %d files, %d bytes (%v); want none", n, freed, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, blobDir)); len(ents) != 0 {
		t.Errorf("left in the cache: %v", ents)
	}
}

// assertOpens opens e and compares its bytes with want.
func assertOpens(t *testing.T, c *Cache, e Entry, want []byte) {
	t.Helper()
	b, err := c.Open(e)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := make([]byte, b.Size())
	if _, err := b.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
		t.Errorf("opened %d bytes (%v), want the %d stored", len(got), err, len(want))
	}
}
