package cache

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestIndexBounds: an index file read back may hold at most
// maxIndexVersions versions, and a version with an overlong field (its
// ETag would go out in If-None-Match) is dropped.
func TestIndexBounds(t *testing.T) {
	c := newCache(t)
	var warned []string
	c.Warnf = func(f string, a ...any) { warned = append(warned, f) }
	many := make([]Entry, maxIndexVersions+1)
	for i := range many {
		many[i] = Entry{ETag: `"v"`, Size: 1, SHA256: sum("x"), Stored: time.Unix(int64(i), 0)}
	}
	writeRawIndex(t, c, "u", many, 0)
	if idx, err := c.readIndex("u"); err != nil || len(idx.Versions) != 0 || len(warned) != 1 {
		t.Errorf("%d versions: read %d, %v, warnings %q; want none, one warning", len(many), len(idx.Versions), err, warned)
	}
	long := Entry{ETag: `"` + strings.Repeat("e", maxIndexField) + `"`, Size: 1, SHA256: sum("x")}
	fine := Entry{ETag: `"ok"`, Size: 1, SHA256: sum("x")}
	writeRawIndex(t, c, "w", []Entry{long, fine}, 0)
	if idx, err := c.readIndex("w"); err != nil || len(idx.Versions) != 1 || idx.Versions[0].ETag != `"ok"` {
		t.Errorf("an overlong ETag: read %+v, %v; want only the other version", idx, err)
	}
}

// FuzzIndex reads any bytes as the index file of a URL: a file is either
// refused with a one-line warning (and read as empty) or gives at most maxIndexVersions usable
// versions, newest first, which written back read back the same.
func FuzzIndex(f *testing.F) {
	const url = "http://127.0.0.1/f"
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, vs := range [][]Entry{
		{{ETag: `"a"`, Size: 3, SHA256: sum("abc"), Stored: t0, Used: t0}},
		{{ETag: `"b"`, Size: 1, SHA256: sum("b"), Path: "/tmp/b", ModTime: t0, Stored: t0},
			{ETag: `"a"`, ReprDigest: "sha-256=:AAAA:", ContentType: "text/plain", Size: 0, SHA256: sum(""), Stored: t0.Add(time.Hour)}},
		{{ETag: `"rel"`, Size: 1, SHA256: sum("r"), Path: "rel.txt"}, {ETag: `"neg"`, Size: -1, SHA256: sum("n")}},
	} {
		b, _ := json.Marshal(index{V: indexVersion, URL: url, Versions: vs})
		f.Add(b)
	}
	f.Add([]byte(`{"v":2,"url":"` + url + `"}`))
	f.Add([]byte(`{"v":1,"url":"http://other/"}`))
	f.Add([]byte(`not json`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Open(filepath.Join(dir, "cache"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var warned []string
		c.Warnf = func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }
		if err := os.WriteFile(filepath.Join(c.Dir, indexDir, urlKey(url)), data, 0o600); err != nil {
			t.Fatal(err)
		}
		idx, err := c.readIndex(url)
		if err != nil {
			t.Fatalf("readIndex: %v", err)
		}
		if len(idx.Versions) > maxIndexVersions || idx.URL != url {
			t.Fatalf("read %d versions of %q", len(idx.Versions), idx.URL)
		}
		for i, e := range idx.Versions {
			if !usable(e) || i > 0 && e.Stored.After(idx.Versions[i-1].Stored) {
				t.Fatalf("version %d %+v is unusable or out of order", i, e)
			}
		}
		if len(warned) > 1 || len(warned) == 1 && (len(idx.Versions) > 0 || strings.Contains(warned[0], "\n") || len(warned[0]) > 1000) {
			t.Fatalf("warnings %q, %d versions read: want one short line and none", warned, len(idx.Versions))
		}
		if err := c.writeIndex(idx); err != nil {
			t.Fatalf("writeIndex: %v", err)
		}
		again, err := c.readIndex(url)
		if err != nil || again.corrupt || !sameVersions(again.Versions, idx.Versions) {
			t.Fatalf("versions %+v written back read as %+v, %v", idx.Versions, again.Versions, err)
		}
	})
}

// sameVersions compares versions as the index stores them.
func sameVersions(a, b []Entry) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// FuzzCacheControl checks the directive names of any Cache-Control line:
// trimmed, lowercased, without arguments, no more than its commas allow,
// the same as a plain split when nothing is quoted, and Storable follows
// them.
func FuzzCacheControl(f *testing.F) {
	for _, s := range []string{"no-store", "no-store, im", `private="a,b", no-store`, `no-cache="x\"y,z", max-age=0`, "NO-STORE , IM=1", `"unterminated, no-store`, ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var names []string
		for d := range directives(line) {
			if d == "" || d != strings.TrimSpace(d) || d != strings.ToLower(d) || strings.Contains(d, "=") {
				t.Fatalf("directives(%q) yields %q", line, d)
			}
			names = append(names, d)
		}
		if len(names) > strings.Count(line, ",")+1 {
			t.Fatalf("directives(%q): %d names for %d commas", line, len(names), strings.Count(line, ","))
		}
		if !strings.Contains(line, `"`) {
			var plain []string
			for _, p := range strings.Split(line, ",") {
				p, _, _ = strings.Cut(p, "=")
				if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
					plain = append(plain, p)
				}
			}
			if !slices.Equal(names, plain) {
				t.Fatalf("directives(%q) = %q, a plain split gives %q", line, names, plain)
			}
		}
		want := !slices.Contains(names, "no-store") || slices.Contains(names, "im")
		if got := Storable(http.Header{"Cache-Control": {line}}); got != want {
			t.Fatalf("Storable(%q) = %v with directives %q", line, got, names)
		}
	})
}
