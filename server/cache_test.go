package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Digests are computed once per file version and algorithm.
func TestDigestCache(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	// The files never settle: their untrusted digests are cached all the
	// same for responses whose bytes the guard checks (a slow run must
	// not hash them again as they settle); a HEAD hashes them again
	// (TestUntrustedDigestsNotUsedUnchecked).
	s.cfg.settle = time.Hour
	before := hashPasses.Load()
	for range 3 {
		raw(t, ts, "GET", "/data.bin", "Want-Content-Digest: sha-256=1")
		raw(t, ts, "GET", "/data.bin", "Range: bytes=0-9")
	}
	if n := hashPasses.Load() - before; n != 1 {
		t.Errorf("sha-256 of data.bin computed %d times, want 1", n)
	}
	raw(t, ts, "GET", "/data.bin", "Want-Repr-Digest: sha-512=1")
	raw(t, ts, "GET", "/data.bin", "Want-Repr-Digest: sha-512=1")
	if n := hashPasses.Load() - before; n != 2 {
		t.Errorf("after sha-512: %d passes, want 2", n)
	}
	// A new version (size, mtime) gets new digests and a new ETag.
	old := raw(t, ts, "HEAD", "/hello.json").Header.Get("ETag")
	p := filepath.Join(dir, "hello.json")
	must(t, os.WriteFile(p, []byte("changed\n"), 0o644))
	must(t, os.Chtimes(p, time.Now(), time.Now().Add(time.Second)))
	r := raw(t, ts, "GET", "/hello.json")
	if r.Header.Get("ETag") == old || r.Header.Get("Repr-Digest") != sfSHA256([]byte("changed\n")) {
		t.Errorf("stale digests after change: %s %s", r.Header.Get("ETag"), r.Header.Get("Repr-Digest"))
	}
}

func TestDigestCacheBound(t *testing.T) {
	c := newDigestCache(2)
	a, b, d := fileKey{name: "a"}, fileKey{name: "b"}, fileKey{name: "d"}
	ea := c.get(a)
	c.get(b)
	c.get(a)
	c.get(d) // evicts b, the least recently used
	if c.len() != 2 || c.get(a) != ea {
		t.Error("LRU eviction dropped the wrong entry")
	}
}

// readerFromRecorder is a ResponseWriter that records whether the body
// came through ReadFrom (net/http's sendfile path).
type readerFromRecorder struct {
	*httptest.ResponseRecorder
	readFrom int // calls with what sendfile takes: a file, or a limited reader of one
}

func (r *readerFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	inner := src
	if lr, ok := src.(*io.LimitedReader); ok {
		inner = lr.R
	}
	if _, ok := inner.(*os.File); ok {
		r.readFrom++
	}
	return io.Copy(r.ResponseRecorder, src)
}

// Without a Content-Digest to stream and without body faults, the file
// reaches the connection through ReadFrom, so net/http can use sendfile.
// The fixture's files count as settled (settle 0): a file changed within
// the settle window is hashed as it is sent (guard.go), which needs the
// bytes in user space.
func TestSendfilePreserved(t *testing.T) {
	dir := fixture(t)
	cases := []struct {
		name    string
		opts    []Option
		headers map[string]string
		want    int
		fresh   bool // the default settle window: the file just changed
	}{
		{"just changed: hashed as sent", nil, nil, 0, true},
		{"plain", nil, nil, 1, false},
		{"content digest from cache", nil, map[string]string{"Want-Content-Digest": "sha-256=1"}, 1, false},
		{"range with header digest", nil, map[string]string{"Range": "bytes=5-100004", "Want-Content-Digest": "sha-256=1"}, 1, false},
		{"small range joins the headers", nil, map[string]string{"Range": "bytes=5-100"}, 0, false},
		{"flipped byte", []Option{WithFlippedByte(3)}, nil, 0, false},
	}
	for _, tc := range cases {
		s, err := New(dir, tc.opts...)
		must(t, err)
		defer s.Close()
		if !tc.fresh {
			s.cfg.settle = 0
		}
		req := httptest.NewRequest("GET", "/data.bin", nil)
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		rec := &readerFromRecorder{ResponseRecorder: httptest.NewRecorder()}
		s.Handler().ServeHTTP(rec, req)
		if (rec.readFrom > 0) != (tc.want > 0) {
			t.Errorf("%s: ReadFrom of the file used %d times, want %s", tc.name, rec.readFrom,
				map[bool]string{true: "some", false: "none"}[tc.want > 0])
		}
		if rec.Code != http.StatusOK && rec.Code != http.StatusPartialContent {
			t.Errorf("%s: status %d", tc.name, rec.Code)
		}
	}
}

func TestNewErrors(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	must(t, os.WriteFile(f, nil, 0o644))
	for _, dir := range []string{f, filepath.Join(f, "missing")} {
		if _, err := New(dir); err == nil {
			t.Errorf("New(%q) succeeded", dir)
		}
	}
	for _, o := range []Option{WithMaxUpload(0), WithRateLimit(0), WithChangingETag(0), WithTruncatedBody(-1),
		WithFlippedByte(-1), WithLyingContentRange(0), WithLogger(nil), WithDelta(nil), WithStateDir("")} {
		if _, err := New(t.TempDir(), o); err == nil {
			t.Error("an invalid option was accepted")
		}
	}
	if _, err := New(t.TempDir(), WithStateDir(f)); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("state dir under a file: %v", err)
	}
}
