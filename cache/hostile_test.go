package cache

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeRawIndex writes the index file of url as JSON plus pad spaces.
func writeRawIndex(t *testing.T, c *Cache, url string, versions []Entry, pad int) {
	t.Helper()
	data, err := json.Marshal(index{V: indexVersion, URL: url, Versions: versions})
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, bytes.Repeat([]byte(" "), pad)...)
	if err := os.WriteFile(filepath.Join(c.Dir, indexDir, urlKey(url)), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOpenLinkedDevice: a linked version whose path names a device (here
// /dev/zero, 0 bytes by stat) was hashed to the device's end: for ever.
func TestOpenLinkedDevice(t *testing.T) {
	fi, err := os.Stat("/dev/zero")
	if err != nil {
		t.Skip("no /dev/zero")
	}
	c := newCache(t)
	e := Entry{URL: "u", ETag: `"z"`, Path: "/dev/zero", Size: 0, ModTime: fi.ModTime(), SHA256: sum("")}
	// The old code never returned here: go test's -timeout reports that
	// with the stack of the hashing goroutine, no wall clock needed.
	b, err := c.Open(e)
	if err == nil {
		b.Close()
		t.Fatal("Open of a linked /dev/zero succeeded")
	}
}

// TestIndexRelativeLinkedPath: an index naming a linked file by a relative
// path made the cache read whatever file of that name the working
// directory held. PutFile records absolute paths only.
func TestIndexRelativeLinkedPath(t *testing.T) {
	c := newCache(t)
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("rel.txt", []byte("relative"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat("rel.txt")
	if err != nil {
		t.Fatal(err)
	}
	writeRawIndex(t, c, "u", []Entry{{ETag: `"r"`, Path: "rel.txt", Size: fi.Size(), ModTime: fi.ModTime(), SHA256: sum("relative"), Stored: time.Now()}}, 0)
	if vs, err := c.Versions("u"); err != nil || len(vs) != 0 {
		t.Errorf("Versions with a relative linked path = %v, %v; want none", vs, err)
	}
}

// TestIndexTooLarge: an index file is read with a bound, not whole
// whatever its size.
func TestIndexTooLarge(t *testing.T) {
	c := newCache(t)
	e := put(t, c, "u", `"a"`, "alpha")
	e.URL = ""
	var warned strings.Builder
	c.Warnf = func(f string, a ...any) { warned.WriteString(f) }
	writeRawIndex(t, c, "u", []Entry{e}, maxIndexFile)
	if vs, err := c.Versions("u"); err != nil || len(vs) != 0 {
		t.Errorf("Versions from a %d-byte index = %v, %v; want none", maxIndexFile, vs, err)
	}
	if !strings.Contains(warned.String(), "unreadable") {
		t.Errorf("warning %q, want one about an unreadable index", warned.String())
	}
}

// TestOpenSharedDir: a cache directory others can write (HDIG_CACHE_DIR
// pointing into a shared place) is refused, and so is one whose index
// directory is: whoever can write there could plant a version of a URL
// with the sha-256 it records, which a 304 would release as the body.
func TestOpenSharedDir(t *testing.T) {
	for _, sub := range []string{".", indexDir, blobDir} {
		dir := t.TempDir()
		c, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if err := os.Chmod(filepath.Join(dir, sub), 0o777); err != nil {
			t.Fatal(err)
		}
		if c, err := Open(dir); err == nil {
			c.Close()
			t.Errorf("Open with %s mode 0777 succeeded", sub)
		}
		os.Chmod(filepath.Join(dir, sub), 0o755)
		c, err = Open(dir)
		if err != nil {
			t.Fatalf("Open with %s mode 0755: %v", sub, err)
		}
		c.Close()
	}
}
