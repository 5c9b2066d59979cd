package cache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestOpenDropsCorruptBlob(t *testing.T) {
	tests := []struct {
		name   string
		damage func(blob string) error
	}{
		{"byte flipped", func(blob string) error {
			data, err := os.ReadFile(blob)
			if err != nil {
				return err
			}
			data[3] ^= 0x20
			return os.WriteFile(blob, data, 0o600)
		}},
		{"truncated", func(blob string) error { return os.Truncate(blob, 2) }},
		{"deleted", os.Remove},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(t)
			e := put(t, c, "u", `"a"`, "the base version")
			put(t, c, "u", `"b"`, "a newer version")
			blob := filepath.Join(c.Dir, filepath.FromSlash(blobName(e.SHA256)))
			if err := tt.damage(blob); err != nil {
				t.Fatal(err)
			}
			if _, err := readBase(c, e); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open of a damaged blob: %v, want ErrCorrupt", err)
			}
			if _, ok, _ := c.Lookup("u", `"a"`); ok {
				t.Error("the damaged version is still listed")
			}
			if _, err := os.Stat(blob); !os.IsNotExist(err) {
				t.Errorf("the damaged blob is still on disk (%v)", err)
			}
			if vs, _ := c.Versions("u"); etags(vs) != `"b"` {
				t.Errorf("Versions = %s, want the undamaged \"b\"", etags(vs))
			}
		})
	}
}

func TestVersionsDropsTruncatedBlob(t *testing.T) {
	c := newCache(t)
	e := put(t, c, "u", `"a"`, "the base version")
	if err := os.Truncate(filepath.Join(c.Dir, filepath.FromSlash(blobName(e.SHA256))), 1); err != nil {
		t.Fatal(err)
	}
	if vs, _ := c.Versions("u"); len(vs) != 0 {
		t.Errorf("Versions = %s, want none", etags(vs))
	}
	// A later Put of the same bytes mends the blob.
	e = put(t, c, "u", `"a"`, "the base version")
	if got, err := readBase(c, e); err != nil || got != "the base version" {
		t.Errorf("Open after a new Put: %q, %v", got, err)
	}
}

func TestOpenEmptyBody(t *testing.T) {
	c := newCache(t)
	e := put(t, c, "u", `"e"`, "")
	if got, err := readBase(c, e); err != nil || got != "" {
		t.Errorf("Open of an empty version: %q, %v", got, err)
	}
}

func TestLinkedEntry(t *testing.T) {
	const body = "downloaded with -o"
	tests := []struct {
		name   string
		change func(file string) error
		ok     bool
	}{
		{"untouched", func(string) error { return nil }, true},
		{"moved", func(f string) error { return os.Rename(f, f+".moved") }, false},
		{"deleted", os.Remove, false},
		{"appended", func(f string) error { return os.WriteFile(f, []byte(body+"!"), 0o600) }, false},
		{"edited in place, mtime kept", func(f string) error {
			fi, err := os.Stat(f)
			if err != nil {
				return err
			}
			if err := os.WriteFile(f, []byte("DOWNLOADED with -o"), 0o600); err != nil {
				return err
			}
			return os.Chtimes(f, fi.ModTime(), fi.ModTime())
		}, false},
		{"touched", func(f string) error {
			later := time.Now().Add(time.Hour)
			return os.Chtimes(f, later, later)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(t)
			file := filepath.Join(t.TempDir(), "out.bin")
			if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			e, err := c.PutFile(Entry{URL: "u", ETag: `"a"`}, file, sum(body))
			if err != nil {
				t.Fatal(err)
			}
			if !e.Linked() || e.Size != int64(len(body)) {
				t.Fatalf("PutFile = %+v, want a linked entry of %d bytes", e, len(body))
			}
			if blobs, _ := filepath.Glob(filepath.Join(c.Dir, "blobs", "*", "*")); len(blobs) != 0 {
				t.Errorf("a linked entry made a copy: %v", blobs)
			}
			if err := tt.change(file); err != nil {
				t.Fatal(err)
			}
			got, err := readBase(c, e)
			if tt.ok {
				if err != nil || got != body {
					t.Fatalf("Open = %q, %v; want %q", got, err, body)
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open = %q, %v; want ErrCorrupt", got, err)
			}
			if _, ok, _ := c.Lookup("u", `"a"`); ok {
				t.Error("the invalid linked version is still listed")
			}
			if _, err := os.Stat(file); err != nil && tt.name != "moved" && tt.name != "deleted" {
				t.Errorf("the linked file itself was touched: %v", err)
			}
		})
	}
}

func TestPutFileHashesAndReplaces(t *testing.T) {
	c := newCache(t)
	file := filepath.Join(t.TempDir(), "out.bin")
	os.WriteFile(file, []byte("v1"), 0o600)
	if e, err := c.PutFile(Entry{URL: "u", ETag: `"1"`}, file, ""); err != nil || e.SHA256 != sum("v1") {
		t.Fatalf("PutFile without a sum = %+v, %v; want sha256 %s", e, err, sum("v1"))
	}
	if _, err := c.PutFile(Entry{URL: "u", ETag: `"x"`}, file, "nothex"); err == nil {
		t.Error("PutFile accepted a malformed sum")
	}
	os.WriteFile(file, []byte("v2"), 0o600)
	if _, err := c.PutFile(Entry{URL: "u", ETag: `"2"`}, file, sum("v2")); err != nil {
		t.Fatal(err)
	}
	if vs, _ := c.Versions("u"); etags(vs) != `"2"` {
		t.Errorf("Versions = %s, want only \"2\": the file no longer holds \"1\"", etags(vs))
	}
}
