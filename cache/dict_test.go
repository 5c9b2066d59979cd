package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var farFuture = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func putDict(t *testing.T, c *Cache, url, origin, body string, expires time.Time) Dict {
	t.Helper()
	d, err := c.PutDict(Dict{URL: url, Origin: origin, Match: "/*", Type: "raw", Expires: expires}, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// dictFiles counts the dictionary blobs on disk.
func dictFiles(t *testing.T, c *Cache) int {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(c.Dir, dictDir))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, de := range des {
		if validSum(de.Name()) {
			n++
		}
	}
	return n
}

// TestDictStore: a dictionary reads back checked; one from the same URL
// replaces it; expired ones are dropped when the next is stored.
func TestDictStore(t *testing.T) {
	c := newCache(t)
	d := putDict(t, c, "http://127.0.0.1/a.js", "http://127.0.0.1", "v1", farFuture)
	if b, err := c.ReadDict(d); err != nil || string(b) != "v1" || d.SHA256 != sum("v1") {
		t.Fatalf("read back %q, %v, sha %s", b, err, d.SHA256)
	}
	putDict(t, c, "http://127.0.0.1/a.js", "http://127.0.0.1", "v2", farFuture)
	if ds := c.Dicts(); len(ds) != 1 || ds[0].SHA256 != sum("v2") || dictFiles(t, c) != 1 {
		t.Fatalf("after a new version of the same URL: %d entries (%+v), %d files; want one, v2", len(ds), ds, dictFiles(t, c))
	}
	putDict(t, c, "http://127.0.0.1/old.js", "http://127.0.0.1", "old", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	putDict(t, c, "http://127.0.0.1/b.js", "http://127.0.0.1", "b", farFuture)
	for _, d := range c.Dicts() {
		if d.URL == "http://127.0.0.1/old.js" {
			t.Errorf("expired dictionary kept after another was stored: %+v", d)
		}
	}
	if n := dictFiles(t, c); n != 2 {
		t.Errorf("%d dictionary files; want 2", n)
	}
}

// TestDictBounds: counts per origin and in all, bytes, and one
// dictionary's size are bounded; the one just stored is kept.
func TestDictBounds(t *testing.T) {
	c := newCache(t)
	c.DictMaxCount, c.DictPerOrigin, c.DictMaxBytes, c.DictMaxSize = 5, 3, 100, 40
	for i := range 4 {
		putDict(t, c, fmt.Sprintf("http://127.0.0.1/%d", i), "http://127.0.0.1", fmt.Sprintf("a%d", i), farFuture)
	}
	for i := range 4 {
		putDict(t, c, fmt.Sprintf("http://127.0.0.2/%d", i), "http://127.0.0.2", fmt.Sprintf("b%d", i), farFuture)
	}
	per := map[string]int{}
	for _, d := range c.Dicts() {
		per[d.Origin]++
	}
	if n := len(c.Dicts()); n != 5 || per["http://127.0.0.1"] > 3 || per["http://127.0.0.2"] != 3 || dictFiles(t, c) != 5 {
		t.Errorf("8 stored with at most 5, 3 per origin: got %d entries %v, %d files", n, per, dictFiles(t, c))
	}
	for i := range 3 {
		putDict(t, c, fmt.Sprintf("http://127.0.0.3/%d", i), "http://127.0.0.3", strings.Repeat("x", 39)+fmt.Sprint(i), farFuture)
	}
	var total int64
	for _, d := range c.Dicts() {
		total += d.Size
	}
	if total > 100 || c.Dicts()[0].URL != "http://127.0.0.3/2" {
		t.Errorf("%d bytes kept, newest %s; want at most 100, the last one stored", total, c.Dicts()[0].URL)
	}
	_, err := c.PutDict(Dict{URL: "http://127.0.0.1/big", Origin: "http://127.0.0.1", Match: "/*", Type: "raw", Expires: farFuture}, strings.NewReader(strings.Repeat("y", 41)))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("41 bytes over a 40-byte cap: got %v, want ErrTooLarge", err)
	}
}

// TestDictCorrupt: changed bytes are refused and the entry dropped.
func TestDictCorrupt(t *testing.T) {
	c := newCache(t)
	d := putDict(t, c, "http://127.0.0.1/a.js", "http://127.0.0.1", "good", farFuture)
	if err := os.WriteFile(filepath.Join(c.Dir, dictBlob(d.SHA256)), []byte("evil"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadDict(d); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("changed bytes: got %v, want ErrCorrupt", err)
	}
	if ds := c.Dicts(); len(ds) != 0 {
		t.Errorf("corrupt dictionary still listed: %+v", ds)
	}
}

// TestDictClearGC: gc drops expired dictionaries and stray files; clear
// drops every one.
func TestDictClearGC(t *testing.T) {
	c := newCache(t)
	putDict(t, c, "http://127.0.0.1/a", "http://127.0.0.1", "a", farFuture)
	stray := filepath.Join(c.Dir, dictBlob(sum("stray")))
	if err := os.WriteFile(stray, []byte("stray"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A crashed PutDict's temporary file is taken by GC once stale, as
	// blobs/'s are; one being written is not.
	old, fresh := filepath.Join(c.Dir, dictDir, tempPrefix+"old"), filepath.Join(c.Dir, dictDir, tempPrefix+"new")
	for _, f := range []string{old, fresh} {
		if err := os.WriteFile(f, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * staleTemp)
	os.Chtimes(old, past, past)
	if _, _, err := c.GC(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) || len(c.Dicts()) != 1 {
		t.Errorf("gc: stray file %v, %d dictionaries; want it gone, 1 kept", err, len(c.Dicts()))
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("gc: stale temporary file %v, want it gone", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("gc: temporary file being written: %v, want it kept", err)
	}
	if err := c.Clear(); err != nil || len(c.Dicts()) != 0 {
		t.Errorf("clear: %v, %d dictionaries left", err, len(c.Dicts()))
	}
}

// TestDictIndexManyEntries: an index of more entries than are ever kept
// is refused at the entry after the bound, without building the others: a
// 4 MiB file of "{}" entries (1.4 million of them) is not turned into
// hundreds of megabytes of entries on every GET that looks for a
// dictionary. The warning names the bound, not a count of them all.
func TestDictIndexManyEntries(t *testing.T) {
	c := newCache(t)
	if err := os.MkdirAll(filepath.Join(c.Dir, dictDir), 0o700); err != nil {
		t.Fatal(err)
	}
	n := (maxDictIndexFile - 40) / 3
	data := `{"v":1,"dicts":[` + strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}`
	if err := os.WriteFile(filepath.Join(c.Dir, dictIndexName), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var warned []string
	c.Warnf = func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }
	ds := c.Dicts()
	if len(ds) != 0 || len(warned) != 1 || !strings.Contains(warned[0], fmt.Sprintf("more than %d dictionaries", maxDictEntries)) {
		t.Errorf("%d entries, warnings %q; want the index refused at entry %d, said once", len(ds), warned, maxDictEntries+1)
	}
}

// FuzzDictIndex reads any bytes as the dictionary index: refused with one
// one-line warning (read as empty), or at most maxDictEntries usable
// entries, newest first, which written back read back the same.
func FuzzDictIndex(f *testing.F) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	good := Dict{URL: "http://127.0.0.1/a.js", Origin: "http://127.0.0.1", Match: "/*.js", MatchDest: []string{"script"},
		ID: "v1", Type: "raw", SHA256: sum("a"), Size: 1, Stored: t0, Expires: t0.Add(time.Hour), Used: t0}
	other := good
	other.Type, other.URL = "zstd", "http://127.0.0.1/b"
	for _, ds := range [][]Dict{{good}, {good, other}} {
		b, _ := json.Marshal(dictIndex{V: dictIndexVersion, Dicts: ds})
		f.Add(b)
	}
	f.Add([]byte(`{"v":2}`))
	f.Add([]byte(`not json`))
	c, err := Open(filepath.Join(f.TempDir(), "cache")) // one cache: each input only rewrites the index
	if err != nil {
		f.Fatal(err)
	}
	defer c.Close()
	os.MkdirAll(filepath.Join(c.Dir, dictDir), 0o700)
	f.Fuzz(func(t *testing.T, data []byte) {
		var warned []string
		c.Warnf = func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }
		if err := os.WriteFile(filepath.Join(c.Dir, dictIndexName), data, 0o600); err != nil {
			t.Fatal(err)
		}
		idx := c.readDictIndex()
		if len(idx.Dicts) > maxDictEntries {
			t.Fatalf("%d entries read", len(idx.Dicts))
		}
		for i, d := range idx.Dicts {
			if !usableDict(d) || i > 0 && d.Stored.After(idx.Dicts[i-1].Stored) {
				t.Fatalf("entry %d %+v is unusable or out of order", i, d)
			}
		}
		if len(warned) > 1 || len(warned) == 1 && (len(idx.Dicts) > 0 || strings.Contains(warned[0], "\n")) {
			t.Fatalf("warnings %q with %d entries", warned, len(idx.Dicts))
		}
		b, err := json.Marshal(idx)
		if err != nil {
			t.Fatal(err)
		}
		var back dictIndex
		if err := parseDictIndex(b, &back); err != nil || len(back.Dicts) != len(idx.Dicts) {
			t.Fatalf("written back: %d entries, %v; want %d", len(back.Dicts), err, len(idx.Dicts))
		}
	})
}

// TestPutDictFieldOverBound: a dictionary whose URL (a long query), id or
// match-dest is more than an index read keeps (usableDict) was written
// and reported stored, then dropped on every read: never offered, and
// nothing said so. It is refused before its bytes are written.
func TestPutDictFieldOverBound(t *testing.T) {
	c := newCache(t)
	long := "http://127.0.0.1/a.js?q=" + strings.Repeat("x", maxDictURL)
	dests := make([]string, maxDictDests+1)
	for i := range dests {
		dests[i] = "script"
	}
	for i, d := range []Dict{
		{URL: long, Origin: "http://127.0.0.1", Match: "/*"},
		{URL: "http://127.0.0.1/b.js", Origin: "http://127.0.0.1", Match: "/*", ID: strings.Repeat("i", maxDictID+1)},
		{URL: "http://127.0.0.1/c.js", Origin: "http://127.0.0.1", Match: "/*", MatchDest: dests},
	} {
		d.Type, d.Expires = "raw", farFuture
		if _, err := c.PutDict(d, strings.NewReader("body")); err == nil {
			t.Errorf("PutDict %d succeeded; want it refused", i)
		}
	}
	if ds := c.Dicts(); len(ds) != 0 {
		t.Errorf("%d dictionaries read back; want none", len(ds))
	}
	if _, err := os.Stat(filepath.Join(c.Dir, dictDir, sum("body"))); err == nil {
		t.Error("the refused dictionary's bytes are on disk")
	}
}
