package cache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hdig/hdig/fileid"
)

// A linked file edited in place with its size and mtime put back is another
// version: it is not offered as a base (Versions), and Open re-hashes it and
// refuses it. Before, size and mtime alone made it look unchanged.
func TestLinkedFileEditedWithMTimeRestored(t *testing.T) {
	c := newCache(t)
	file := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(file, []byte("version one"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := c.PutFile(Entry{URL: "u", ETag: `"1"`}, file, sum("version one"))
	if err != nil {
		t.Fatal(err)
	}
	if !e.File.Strong() {
		t.Skipf("no strong file identity here (%+v)", e.File)
	}
	st, _ := os.Stat(file)
	probe := filepath.Join(filepath.Dir(file), "probe")
	for tries := 0; tries < 10000; tries++ { // let the ctime clock tick
		os.WriteFile(probe, nil, 0o644)
		if id, _ := fileid.Stat(probe); id.CTime != e.File.CTime {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	f, _ := os.OpenFile(file, os.O_RDWR, 0)
	f.WriteAt([]byte("VERSION"), 0)
	f.Close()
	os.Chtimes(file, st.ModTime(), st.ModTime())
	if st2, _ := os.Stat(file); st2.Size() != st.Size() || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatal("size and mtime not restored")
	}
	vs, err := c.Versions("u")
	if err != nil || len(vs) != 0 {
		t.Fatalf("Versions = %+v, %v; want the edited file not offered", vs, err)
	}
	if _, err := c.Open(e); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open = %v, want ErrCorrupt", err)
	}
}

// An entry of the earlier index format (no file identity) still reads, and
// its file is re-hashed before use.
func TestLinkedEntryWithoutIdentity(t *testing.T) {
	c := newCache(t)
	file := filepath.Join(t.TempDir(), "out")
	os.WriteFile(file, []byte("v"), 0o644)
	e, err := c.PutFile(Entry{URL: "u", ETag: `"1"`}, file, sum("v"))
	if err != nil {
		t.Fatal(err)
	}
	e.File = fileid.ID{}
	if ok, _ := c.plausible(e); !ok {
		t.Fatal("an entry without identity is not plausible")
	}
	if got, err := readBase(c, e); err != nil || got != "v" {
		t.Fatalf("Open = %q, %v", got, err)
	}
}
