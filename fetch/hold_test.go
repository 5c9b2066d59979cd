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
// read back or hashed again: the spool is copied into the cache by the
// kernel, under the sha-256 computed as it arrived, and Open (which checks
// every version it hands out) finds the served bytes.
func TestHoldCachedWithoutReadBack(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, req := o.request(t, 0)
	req.Delta = &Delta{Cache: store}
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	before := heldReadBack.Load()
	res, err := c.Hold(context.Background(), req, &HeldSink{Out: out, Dir: t.TempDir()}, pieceOpts)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, out.Name(), data)
	if n := heldReadBack.Load() - before; n != 0 {
		t.Errorf("%d bytes of the spool read back to cache it, want 0", n)
	}
	vs, err := store.Versions(req.URL)
	if err != nil || len(vs) != 1 {
		t.Fatalf("cached versions %v, %v; want 1 (verdict %v)", vs, err, res.Verdict.Checks)
	}
	b, err := store.Open(vs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := make([]byte, b.Size())
	if _, err := b.ReadAt(got, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("cached %d bytes (%v), want the %d served", len(got), err, len(data))
	}
}
