package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// A blob or a dictionary is not synced to disk: every use checks it against its sha-256
// (TestOpenDropsCorruptBlob), so one torn by a crash is dropped, never
// used, and a download does not wait for the disk to take a second copy
// of the body (hdig get's default). The index, whose loss would lose
// every version, still is. Counted in bytes synced, not timed.
func TestBlobsNotSynced(t *testing.T) {
	body := bytes.Repeat([]byte("a version of the body, "), 40<<10) // ~900 KiB
	sum := sha256.Sum256(body)
	spool := filepath.Join(t.TempDir(), "spool")
	if err := os.WriteFile(spool, body, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(spool)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := newCache(t)
	entry := func(e Entry, err error) (func() (string, error), error) {
		return func() (string, error) { return readBase(c, e) }, err
	}
	for _, p := range []struct {
		name string
		put  func() (read func() (string, error), err error)
	}{
		{"PutVerified", func() (func() (string, error), error) {
			return entry(c.PutVerified(Entry{URL: "u", ETag: `"v"`, SHA256: hex.EncodeToString(sum[:])}, f, int64(len(body))))
		}},
		{"Put", func() (func() (string, error), error) {
			return entry(c.Put(Entry{URL: "w", ETag: `"v"`}, bytes.NewReader(body)))
		}},
		{"PutDict", func() (func() (string, error), error) {
			d, err := c.PutDict(Dict{URL: "https://o.test/d", Origin: "https://o.test", Match: "/*"}, bytes.NewReader(body))
			return func() (string, error) { b, err := c.ReadDict(d); return string(b), err }, err
		}},
	} {
		before := syncedBytes.Load()
		read, err := p.put()
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if n := syncedBytes.Load() - before; n >= int64(len(body)) || n == 0 {
			t.Errorf("%s of %d bytes synced %d bytes, want the index only (more than 0, fewer than the body)", p.name, len(body), n)
		}
		if got, err := read(); err != nil || got != string(body) {
			t.Errorf("%s: the stored bytes read back %d bytes, %v", p.name, len(got), err)
		}
	}
}
