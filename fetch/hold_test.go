package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/verify"
)

// hold fetches the origin's file to stdout held back (Hold), released into
// a file; it returns the result, the error and the file's bytes.
func (o *testOrigin) hold(t *testing.T, opts DownloadOptions, retry int) (*Result, []byte, error) {
	t.Helper()
	c, req := o.request(t, retry)
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	spool := filepath.Join(dir, "tmp")
	os.Mkdir(spool, 0o755)
	res, err := c.Hold(context.Background(), req, &HeldSink{Out: out, Dir: spool}, opts)
	if ents, _ := os.ReadDir(spool); len(ents) != 0 {
		t.Errorf("spool left in TMPDIR: %v", ents)
	}
	got, rerr := os.ReadFile(out.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return res, got, err
}

// A body held back for stdout is fetched in verified range pieces, as -o
// is, then released whole by the kernel: nothing read back in user space.
func TestHoldParallel(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	before := userCopied.Load()
	res, got, err := o.hold(t, pieceOpts, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	if string(got) != string(data) {
		t.Fatalf("released %d bytes, want the %d served", len(got), len(data))
	}
	if res.Strategy != StrategyRanges || res.Pieces != 9 || res.Outcome() != verify.Verified {
		t.Errorf("result %s, %d pieces, %s; want ranges, 9, verified", res.Strategy, res.Pieces, res.Outcome())
	}
	if !res.Verdict.Verified(verify.ReprDigest) || !res.Verdict.Verified(verify.ContentDigest) {
		t.Errorf("checks %v", res.Verdict.Checks)
	}
	if n := o.ranges.Load(); n != 8 {
		t.Errorf("%d range requests, want 8", n)
	}
	if n := userCopied.Load() - before; runtime.GOOS == "linux" && n != 0 {
		t.Errorf("%d bytes released through user space, want 0", n)
	}
}

// Nothing unverified is released: a lying piece, or a whole that does
// not match its Repr-Digest, fails with ErrMismatch and stdout gets no
// byte.
func TestHoldMismatchReleasesNothing(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(*http.Request, int, http.Header, []byte) (int, []byte)
	}{
		{"flipped piece", flip(512 << 10)},
		{"wrong Repr-Digest", func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
			h.Set("Repr-Digest", sha256Field([]byte("another file")))
			return s, b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newTestOrigin(t, pieceTestSize)
			o.tamper = tt.tamper
			res, got, err := o.hold(t, pieceOpts, 1)
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("err = %v, want %v", err, ErrMismatch)
			}
			if len(got) != 0 {
				t.Errorf("%d bytes released, want none", len(got))
			}
			if res == nil || len(res.Verdict.Mismatches()) == 0 {
				t.Errorf("verdict %v, want the mismatch", res)
			}
		})
	}
}

// Without ranges (no validator) the held body is one stream, verified
// the same way.
func TestHoldSingleStream(t *testing.T) {
	o := newTestOrigin(t, 100_000)
	res, got, err := o.hold(t, DownloadOptions{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	if string(got) != string(data) || res.Strategy != StrategyFull || o.ranges.Load() != 0 || res.Outcome() != verify.Verified {
		t.Errorf("%d bytes, %s, %d ranges, %s; want %d, full, 0, verified", len(got), res.Strategy, o.ranges.Load(), res.Outcome(), len(data))
	}
}

// Without a usable TMPDIR a small body is still held in memory and
// released once verified, as before Hold spooled from the start.
func TestHoldNoSpoolDir(t *testing.T) {
	o := newTestOrigin(t, 100_000)
	c, err := NewClient(Options{Timeout: testStall})
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{URL: o.srv.URL + "/f", Policy: verify.DefaultPolicy()}
	out := filepath.Join(t.TempDir(), "stdout")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	held := &HeldSink{Out: f, Dir: filepath.Join(t.TempDir(), "missing")}
	if _, err := c.Hold(context.Background(), req, held, DownloadOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, out, data)
}

// A body held back for stdout becomes a cached base version without being
// read back, hashed again or copied: it is spooled into the cache (an
// anonymous file, cache.Spool) and named there under the sha-256 computed
// as it arrived; the release then copies it out without punching it (it
// is the version now), and Open (which re-hashes every version it hands
// out) finds the served bytes. So it is for a first fetch (pieces into the
// spool) and for a new version fetched while the cache offers the old one
// (one response written into the held sink).
func TestHoldCachedWithoutReadBack(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	store, named := spoolingStore(t) // named: the cache can make anonymous spools here
	c, req := o.request(t, 0)
	req.Delta = &Delta{Cache: store}
	for v := 1; v <= 2; v++ {
		o.setVersion(pieceTestSize, v)
		out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		readBack, copied := heldReadBack.Load(), cache.BlobsCopied()
		res, err := c.Hold(context.Background(), req, &HeldSink{Out: out, Dir: t.TempDir()}, pieceOpts)
		if err != nil {
			t.Fatal(err)
		}
		data, etag := o.current()
		assertFileBytes(t, out.Name(), data)
		if n := heldReadBack.Load() - readBack; n != 0 {
			t.Errorf("version %d: %d bytes of the spool read back to cache it, want 0", v, n)
		}
		if n := cache.BlobsCopied() - copied; named && n != 0 {
			t.Errorf("version %d: %d bytes copied into the cache, want 0 (the spool named)", v, n)
		}
		e, ok, err := store.Lookup(req.URL, etag)
		if err != nil || !ok {
			t.Fatalf("version %d not cached (%v; verdict %+v)", v, err, res.Verdict)
		}
		b, err := store.Open(e)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		got := make([]byte, b.Size())
		if _, err := b.ReadAt(got, 0); err != nil || !bytes.Equal(got, data) {
			t.Errorf("version %d: cached %d bytes (%v), want the %d served", v, len(got), err, len(data))
		}
		b.Close()
	}
}

// Only a body the cache could keep is spooled into it: of a known length
// within its MaxBytes. A larger one, or one of unknown length, is spooled
// in TMPDIR as before and never touches the cache's disk.
func TestSpoolInOnlyWhatTheCacheKeeps(t *testing.T) {
	store, ok := spoolingStore(t)
	if !ok {
		t.Skip("no anonymous spool here")
	}
	store.MaxBytes = 1000
	held := &HeldSink{}
	spoolIn(held, store)
	for _, tt := range []struct {
		size int64
		ok   bool
	}{{0, true}, {1000, true}, {1001, false}, {-1, false}} {
		f, err := held.Spool(tt.size)
		if (err == nil) != tt.ok {
			t.Errorf("Spool(%d): %v, want a spool %v", tt.size, err, tt.ok)
		}
		if f != nil {
			f.Close()
		}
	}
	for _, tt := range []struct {
		max, size int64
		inStore   bool
	}{{1 << 20, 300_000, true}, {1 << 20, -1, false}, {1000, 300_000, false}} {
		store.MaxBytes = tt.max
		s := &HeldSink{Limit: 64 << 10, Dir: t.TempDir()}
		spoolIn(s, store)
		s.expect(tt.size)
		if _, err := s.Write(make([]byte, 300_000)); err != nil {
			t.Fatal(err)
		}
		if s.file == nil || s.inStore != tt.inStore {
			t.Errorf("MaxBytes %d, length %d: spilled %v, into the cache %v; want into the cache %v",
				tt.max, tt.size, s.file != nil, s.inStore, tt.inStore)
		}
		s.Abort()
	}
}

// The length a failed attempt announced does not outlive it: after Reset
// (a retry), a body whose length nobody said (a 226, a decoded body) is
// spooled outside the cache. And a restart that brings a length the cache
// cannot keep moves the empty spool back out of the cache (respool).
func TestSpoolLengthPerAttempt(t *testing.T) {
	store, ok := spoolingStore(t)
	if !ok {
		t.Skip("no anonymous spool here")
	}
	store.MaxBytes = 1 << 20
	t.Run("reset", func(t *testing.T) {
		s := &HeldSink{Out: &bytes.Buffer{}, Limit: 1 << 10, Dir: t.TempDir()}
		spoolIn(s, store)
		defer s.Abort()
		s.expect(4 << 10) // attempt 1: a 200 of 4 KiB, into the cache
		s.Write(make([]byte, 2<<10))
		if !s.inStore {
			t.Fatal("a 4 KiB body was not spooled into the cache")
		}
		s.Reset() // it failed; attempt 2 says no length
		if _, err := s.Write(make([]byte, 2<<20)); err != nil {
			t.Fatal(err)
		}
		if s.inStore {
			t.Errorf("a body of unknown length (%d bytes, MaxBytes %d) was spooled into the cache", s.size, store.MaxBytes)
		}
	})
	t.Run("respool", func(t *testing.T) {
		s := &HeldSink{Out: &bytes.Buffer{}, Dir: t.TempDir()}
		spoolIn(s, store)
		defer s.Abort()
		f, err := s.spool() // Hold: made before the response, in Dir
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			size    int64
			inStore bool
		}{{1000, true}, {1000, true}, {2 << 20, false}, {-1, false}, {1 << 20, true}} {
			if g := s.respool(tt.size); g != nil {
				f = g
			}
			if s.inStore != tt.inStore || s.file != f {
				t.Errorf("a restart with length %d: in the cache %v, want %v", tt.size, s.inStore, tt.inStore)
			}
		}
		f.Write([]byte("some body"))
		if s.respool(-1) != nil || !s.inStore {
			t.Error("a spool with bytes in it was replaced")
		}
	})
}

// spoolingStore opens a cache in a temporary directory, closed when the
// test ends; ok says it can make anonymous spools (cache.Spool) here.
func spoolingStore(t *testing.T) (store *cache.Cache, ok bool) {
	t.Helper()
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f, err := store.Spool()
	if err != nil {
		return store, false
	}
	f.Close()
	return store, true
}
