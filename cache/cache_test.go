package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// newCache opens a cache in a fresh directory with a clock that ticks one
// second per reading, so Stored and Used order is deterministic.
func newCache(t *testing.T) *Cache {
	t.Helper()
	c, err := Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var mu sync.Mutex
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	c.Warnf = t.Logf
	return c
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func put(t *testing.T, c *Cache, url, etag, body string) Entry {
	t.Helper()
	e, err := c.Put(Entry{URL: url, ETag: etag, ContentType: "text/plain"}, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// readBase opens e and returns its bytes.
func readBase(c *Cache, e Entry) (string, error) {
	b, err := c.Open(e)
	if err != nil {
		return "", err
	}
	defer b.Close()
	data, err := io.ReadAll(io.NewSectionReader(b, 0, b.Size()))
	return string(data), err
}

func etags(es []Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.ETag)
	}
	return strings.Join(s, " ")
}

func TestPutLookupOpen(t *testing.T) {
	tests := []struct {
		name   string
		puts   [][3]string // url, etag, body
		url    string
		want   string // ETags of Versions(url), newest first
		lookup string // ETag to look up and open
		body   string // its expected bytes; "" means not found
	}{
		{"one", [][3]string{{"u1", `"a"`, "alpha"}}, "u1", `"a"`, `"a"`, "alpha"},
		{"newest first", [][3]string{{"u1", `"a"`, "alpha"}, {"u1", `"b"`, "beta"}}, "u1", `"b" "a"`, `"a"`, "alpha"},
		{"same etag replaces", [][3]string{{"u1", `"a"`, "alpha"}, {"u1", `"a"`, "alpha2"}}, "u1", `"a"`, `"a"`, "alpha2"},
		{"per URL cap", [][3]string{{"u1", `"a"`, "1"}, {"u1", `"b"`, "2"}, {"u1", `"c"`, "3"}, {"u1", `"d"`, "4"}}, "u1", `"d" "c" "b"`, `"a"`, ""},
		{"other URL", [][3]string{{"u1", `"a"`, "alpha"}, {"u2", `"a"`, "other"}}, "u2", `"a"`, `"a"`, "other"},
		{"weak tag kept verbatim", [][3]string{{"u1", `W/"a"`, "weak"}}, "u1", `W/"a"`, `W/"a"`, "weak"},
		{"empty body", [][3]string{{"u1", `"e"`, ""}}, "u1", `"e"`, `"x"`, ""},
		{"unknown URL", [][3]string{{"u1", `"a"`, "alpha"}}, "u3", "", `"a"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(t)
			for _, p := range tt.puts {
				e := put(t, c, p[0], p[1], p[2])
				if e.SHA256 != sum(p[2]) || e.Size != int64(len(p[2])) {
					t.Fatalf("Put returned sha256 %s size %d, want %s %d", e.SHA256, e.Size, sum(p[2]), len(p[2]))
				}
			}
			vs, err := c.Versions(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := etags(vs); got != tt.want {
				t.Errorf("Versions = %s, want %s", got, tt.want)
			}
			e, ok, err := c.Lookup(tt.url, tt.lookup)
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tt.body != "") {
				t.Fatalf("Lookup found %v, want %v", ok, tt.body != "")
			}
			if !ok {
				return
			}
			if e.URL != tt.url || e.ContentType != "text/plain" {
				t.Errorf("Lookup = %+v, want URL %s and its content type", e, tt.url)
			}
			if got, err := readBase(c, e); err != nil || got != tt.body {
				t.Errorf("Open = %q, %v; want %q", got, err, tt.body)
			}
		})
	}
}

func TestPutDedupsBlobs(t *testing.T) {
	c := newCache(t)
	put(t, c, "u1", `"a"`, "same bytes")
	put(t, c, "u2", `"b"`, "same bytes")
	files, _ := filepath.Glob(filepath.Join(c.Dir, "blobs", "*", "*"))
	if len(files) != 1 || filepath.Base(files[0]) != sum("same bytes") {
		t.Fatalf("blobs = %v, want one named %s", files, sum("same bytes"))
	}
	if n, err := c.Remove("u1"); n != 1 || err != nil {
		t.Fatalf("Remove = %d, %v; want 1, nil", n, err)
	}
	e, _, _ := c.Lookup("u2", `"b"`)
	if got, err := readBase(c, e); err != nil || got != "same bytes" {
		t.Fatalf("shared blob after Remove of the other URL: %q, %v", got, err)
	}
}

func TestPutRefusals(t *testing.T) {
	c := newCache(t)
	if _, err := c.Put(Entry{URL: "u", SHA256: sum("other")}, strings.NewReader("body")); err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Errorf("Put with wrong SHA256: %v, want a mismatch error", err)
	}
	c.MaxBytes = 4
	if _, err := c.Put(Entry{URL: "u"}, strings.NewReader("12345")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Put over MaxBytes: %v, want ErrTooLarge", err)
	}
	if _, err := c.Put(Entry{}, strings.NewReader("x")); err == nil {
		t.Error("Put without URL succeeded")
	}
	if _, err := c.Put(Entry{URL: "u"}, iotestErrReader{}); err == nil {
		t.Error("Put from a failing reader succeeded")
	}
	if es, _ := c.Entries(); len(es) != 0 {
		t.Errorf("refused Puts left entries %v", es)
	}
	if tmps, _ := filepath.Glob(filepath.Join(c.Dir, "blobs", "tmp-*")); len(tmps) != 0 {
		t.Errorf("refused Puts left temporary files %v", tmps)
	}
}

type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestCorruptIndexIsEmpty(t *testing.T) {
	c := newCache(t)
	put(t, c, "u1", `"a"`, "alpha")
	var warned bytes.Buffer
	c.Warnf = func(f string, a ...any) { fmt.Fprintf(&warned, f, a...) }
	for _, junk := range []string{"{not json", `{"v":2,"url":"u1"}`, `{"v":1,"url":"elsewhere"}`, ""} {
		warned.Reset()
		if err := os.WriteFile(filepath.Join(c.Dir, "index", urlKey("u1")), []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		vs, err := c.Versions("u1")
		if err != nil || len(vs) != 0 {
			t.Errorf("index %q: Versions = %v, %v; want none", junk, vs, err)
		}
		if !strings.Contains(warned.String(), "unreadable") {
			t.Errorf("index %q: warning %q, want one about an unreadable index", junk, warned.String())
		}
	}
	put(t, c, "u1", `"b"`, "beta")
	if vs, _ := c.Versions("u1"); etags(vs) != `"b"` {
		t.Errorf("Put over a corrupt index: Versions = %s, want \"b\"", etags(vs))
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("HDIG_CACHE_DIR", "/x/y")
	if d, err := DefaultDir(); d != "/x/y" || err != nil {
		t.Errorf("DefaultDir = %q, %v; want /x/y", d, err)
	}
	t.Setenv("HDIG_CACHE_DIR", "")
	if d, err := DefaultDir(); err == nil && filepath.Base(d) != "hdig" {
		t.Errorf("DefaultDir = %q, want a directory named hdig", d)
	}
}

// TestIndexManyVersions: an index file of more versions than are ever
// kept is refused at the version after the bound, without building the
// others (a 16 MiB file of "{}" is millions of entries); the warning names
// the bound, not a count of them all.
func TestIndexManyVersions(t *testing.T) {
	c := newCache(t)
	put(t, c, "u1", `"a"`, "alpha")
	var warned bytes.Buffer
	c.Warnf = func(f string, a ...any) { fmt.Fprintf(&warned, f, a...) }
	n := (maxIndexFile - 40) / 3
	data := `{"v":1,"url":"u1","versions":[` + strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}`
	if err := os.WriteFile(filepath.Join(c.Dir, "index", urlKey("u1")), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	vs, err := c.Versions("u1")
	if err != nil || len(vs) != 0 || !strings.Contains(warned.String(), fmt.Sprintf("more than %d versions", maxIndexVersions)) {
		t.Errorf("Versions = %d, %v; warning %q; want none, the index refused at version %d", len(vs), err, warned.String(), maxIndexVersions+1)
	}
}
