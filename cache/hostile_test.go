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

// blobFiles lists the blobs on disk, temporary files included.
func blobFiles(t *testing.T, c *Cache) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(c.Dir, blobDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPutFieldOverBound: a version whose ETag, Repr-Digest or Content-Type
// is longer than an index read keeps (maxIndexField) was written, blob and
// all, and dropped on the next read: its blob was then named by nothing,
// outside MaxBytes and never evicted, so an origin sending such a field
// grew the cache by a body per fetch until hdig cache gc. It is refused
// before anything is written.
func TestPutFieldOverBound(t *testing.T) {
	c := newCache(t)
	c.MaxBytes = 64
	long := `"` + strings.Repeat("x", maxIndexField) + `"`
	for i, e := range []Entry{{ETag: long}, {ETag: `"v"`, ReprDigest: long}, {ETag: `"v"`, ContentType: long}} {
		e.URL = "http://example.test/f"
		body := strings.Repeat("b", 40) + string(rune('0'+i))
		if _, err := c.Put(e, strings.NewReader(body)); err == nil {
			t.Errorf("Put %d with a field of %d bytes succeeded", i, maxIndexField+2)
		}
	}
	if bs := blobFiles(t, c); len(bs) != 0 {
		t.Errorf("blobs left on disk: %d (%d bytes allowed); want none", len(bs), c.MaxBytes)
	}
	f := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(f, []byte("linked"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutFile(Entry{URL: "http://example.test/g", ETag: long}, f, ""); err == nil {
		t.Error("PutFile with an over-long ETag succeeded")
	}
}
