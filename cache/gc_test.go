package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEvictLeastRecentlyUsed(t *testing.T) {
	c := newCache(t)
	c.MaxBytes = 30
	a := put(t, c, "a", `"1"`, strings.Repeat("a", 10))
	put(t, c, "b", `"1"`, strings.Repeat("b", 10))
	put(t, c, "c", `"1"`, strings.Repeat("c", 10))
	if _, err := readBase(c, a); err != nil { // a is now the most recently used
		t.Fatal(err)
	}
	put(t, c, "d", `"1"`, strings.Repeat("d", 10)) // evicts b
	put(t, c, "a", `"2"`, strings.Repeat("a", 10)) // same blob as a "1": no growth
	file := filepath.Join(t.TempDir(), "linked")
	os.WriteFile(file, []byte(strings.Repeat("l", 100)), 0o600)
	if _, err := c.PutFile(Entry{URL: "l", ETag: `"1"`}, file, ""); err != nil { // counts nothing
		t.Fatal(err)
	}
	es, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.URL+e.ETag)
	}
	if want := `a"2" a"1" c"1" d"1" l"1"`; strings.Join(got, " ") != want {
		t.Errorf("entries = %s, want %s", strings.Join(got, " "), want)
	}
	blobs, _ := filepath.Glob(filepath.Join(c.Dir, "blobs", "*", "*"))
	if len(blobs) != 3 {
		t.Errorf("blobs = %d, want 3 (a, c, d)", len(blobs))
	}
	put(t, c, "e", `"1"`, strings.Repeat("e", 25)) // evicts c, d, then a
	if es, _ := c.Entries(); len(es) != 2 || es[0].URL != "e" || es[1].URL != "l" {
		t.Errorf("after a large Put: %v, want e and the linked l", es)
	}
}

func TestGC(t *testing.T) {
	c := newCache(t)
	keep := put(t, c, "keep", `"1"`, "kept")
	gone := put(t, c, "gone", `"1"`, "blob removed behind the cache's back")
	os.Remove(filepath.Join(c.Dir, filepath.FromSlash(blobName(gone.SHA256))))
	file := filepath.Join(t.TempDir(), "moved")
	os.WriteFile(file, []byte("linked"), 0o600)
	c.PutFile(Entry{URL: "linked", ETag: `"1"`}, file, "")
	os.Remove(file)

	write := func(rel, data string, age time.Duration) {
		name := filepath.Join(c.Dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(name), 0o700)
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		os.Chtimes(name, old, old)
	}
	orphan := sum("orphan")
	write(blobName(orphan), "orphan", 0)
	write("blobs/tmp-old", "x", 2*time.Hour)
	write("blobs/tmp-new", "x", 0) // a Put in progress
	write("index/tmp-old", "x", 2*time.Hour)
	write("index/"+urlKey("junk"), "{junk", 0)

	removed, freed, err := c.GC()
	if err != nil {
		t.Fatal(err)
	}
	// Versions gone and linked, the orphan blob, two old temps, the junk index.
	if removed != 6 || freed != int64(len("orphan")+2) {
		t.Errorf("GC = %d removed, %d freed; want 6, %d", removed, freed, len("orphan")+2)
	}
	es, _ := c.Entries()
	if len(es) != 1 || es[0].ETag != keep.ETag || es[0].URL != "keep" {
		t.Errorf("entries after GC = %v, want only keep", es)
	}
	for rel, want := range map[string]bool{blobName(keep.SHA256): true, blobName(orphan): false, "blobs/tmp-old": false, "blobs/tmp-new": true, "index/tmp-old": false} {
		if _, err := os.Stat(filepath.Join(c.Dir, filepath.FromSlash(rel))); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", rel, err == nil, want)
		}
	}
	if removed, _, _ := c.GC(); removed != 0 {
		t.Errorf("second GC removed %d, want 0", removed)
	}
}

func TestRemoveAndClear(t *testing.T) {
	c := newCache(t)
	put(t, c, "u", `"1"`, "one")
	put(t, c, "u", `"2"`, "two")
	put(t, c, "v", `"1"`, "vee")
	if n, err := c.Remove("u"); n != 2 || err != nil {
		t.Errorf("Remove = %d, %v; want 2", n, err)
	}
	if n, err := c.Remove("nothing"); n != 0 || err != nil {
		t.Errorf("Remove of an unknown URL = %d, %v; want 0", n, err)
	}
	if blobs, _ := filepath.Glob(filepath.Join(c.Dir, "blobs", "*", "*")); len(blobs) != 1 {
		t.Errorf("blobs after Remove = %v, want only v's", blobs)
	}
	if err := c.Clear(); err != nil {
		t.Fatal(err)
	}
	if es, _ := c.Entries(); len(es) != 0 {
		t.Errorf("entries after Clear = %v", es)
	}
	put(t, c, "w", `"1"`, "usable after Clear")
}
