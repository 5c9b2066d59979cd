package cache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spoolFile writes body to a file whose offset is left at its end, as a
// held body's spool is after it was filled.
func spoolFile(t *testing.T, body string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.WriteString(body); err != nil {
		t.Fatal(err)
	}
	return f
}

// PutVerified stores the first size bytes of a file under the sum the
// caller computed, from the file's start whatever its offset.
func TestPutVerified(t *testing.T) {
	c := newCache(t)
	body := strings.Repeat("verified bytes ", 5000)
	f := spoolFile(t, body+"trailing bytes not held")
	e, err := c.PutVerified(Entry{URL: "https://a.test/v", ETag: `"1"`, SHA256: sum(body)}, f, int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	if e.Size != int64(len(body)) || e.SHA256 != sum(body) {
		t.Errorf("entry %d bytes, sha-256 %s; want %d, %s", e.Size, e.SHA256, len(body), sum(body))
	}
	if got, err := readBase(c, e); err != nil || got != body {
		t.Errorf("read back %d bytes (%v), want the %d stored", len(got), err, len(body))
	}
}

// A sum the bytes do not have is not checked at PutVerified (they are not
// hashed again), but the version is never used: Open checks it, drops it
// and says so.
func TestPutVerifiedWrongSumNeverUsed(t *testing.T) {
	c := newCache(t)
	body := "the bytes held"
	e, err := c.PutVerified(Entry{URL: "https://a.test/w", ETag: `"1"`, SHA256: sum("other bytes")}, spoolFile(t, body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(e); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open of a version stored under a wrong sum: %v, want ErrCorrupt", err)
	}
	if vs, _ := c.Versions("https://a.test/w"); len(vs) != 0 {
		t.Errorf("versions after the failed Open: %v, want none", vs)
	}
}

// A body over MaxBytes is refused before a byte is copied; a sum that is
// not 64 hex digits is refused.
func TestPutVerifiedRefuses(t *testing.T) {
	c := newCache(t)
	c.MaxBytes = 10
	body := "eleven byte"
	if _, err := c.PutVerified(Entry{URL: "https://a.test/x", SHA256: sum(body)}, spoolFile(t, body), 11); !errors.Is(err, ErrTooLarge) {
		t.Errorf("11 bytes over a 10-byte cache: %v, want ErrTooLarge", err)
	}
	if ents, err := fsReadDir(c, blobDir); err != nil || len(ents) != 0 {
		t.Errorf("blob directory after the refusal: %d entries (%v), want none", len(ents), err)
	}
	c.MaxBytes = 0
	if _, err := c.PutVerified(Entry{URL: "https://a.test/x", SHA256: "abc"}, spoolFile(t, body), 11); err == nil {
		t.Error("a 3-digit sha-256 was taken")
	}
}

// fsReadDir lists dir inside the cache's root.
func fsReadDir(c *Cache, dir string) ([]os.DirEntry, error) {
	f, err := c.root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
