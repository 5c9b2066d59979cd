package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// countSink counts the bytes written to it and keeps none.
type countSink struct{ n int64 }

func (s *countSink) Write(p []byte) (int, error) { s.n += int64(len(p)); return len(p), nil }
func (s *countSink) Reset() error                { s.n = 0; return nil }
func (s *countSink) Commit() error               { return nil }
func (s *countSink) Abort() error                { return nil }

// smallLimits is the ratio bound the tests use: 100:1 past 256 KiB, so
// that a bomb is caught after a few hundred KiB, not 64 MiB.
var smallLimits = Limits{MaxRatio: 100, Floor: 256 << 10}

// A small gzip body of megabytes of zeros (with a correct digest of the
// encoded bytes) is stopped once the decoded bytes pass the ratio bound;
// no more than that bound is written.
func TestCompressedBombStopped(t *testing.T) {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(make([]byte, 16<<20))
	zw.Close()
	enc := gz.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Repr-Digest", sha256Field(enc))
		w.Write(enc)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	sink := &countSink{}
	req := &Request{URL: srv.URL, Compressed: true, Policy: verify.DefaultPolicy(), Limits: smallLimits}
	_, err := c.Do(context.Background(), req, sink)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "--max-ratio") {
		t.Fatalf("err = %v, want ErrTooLarge naming --max-ratio", err)
	}
	if bound := max(smallLimits.Floor, 100*int64(len(enc))); sink.n > bound {
		t.Errorf("%d bytes written from %d received, want at most %d", sink.n, len(enc), bound)
	}
	// Within the bound it is written whole.
	sink = &countSink{}
	req.Limits = Limits{MaxRatio: -1}
	if _, err := c.Do(context.Background(), req, sink); err != nil || sink.n != 16<<20 {
		t.Errorf("without a ratio bound: %v, %d bytes", err, sink.n)
	}
}

// --max-filesize refuses a Content-Length over it before reading the body
// and stops a body of unknown length once it passes it; FILE is untouched.
func TestMaxFileSize(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("precious"), 0o644)
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: o.srv.URL + "/f", Policy: verify.DefaultPolicy(), Limits: Limits{MaxFileSize: 1 << 20}}
	res, err := c.Download(context.Background(), req, path, DownloadOptions{})
	if !errors.Is(err, ErrTooLarge) || res.Received != 0 {
		t.Fatalf("Download = %v (%d bytes received), want ErrTooLarge before the body", err, res.Received)
	}
	assertFileBytes(t, path, []byte("precious"))
	assertAbsent(t, path+PartSuffix, path+SidecarSuffix)
	sink := &countSink{}
	if _, err := c.Do(context.Background(), req, sink); !errors.Is(err, ErrTooLarge) || sink.n != 0 {
		t.Errorf("Do = %v, %d bytes written; want ErrTooLarge and none", err, sink.n)
	}

	chunked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 64 {
			w.Write(make([]byte, 64<<10))
			w.(http.Flusher).Flush()
		}
	}))
	defer chunked.Close()
	req.URL = chunked.URL
	res, err = c.Download(context.Background(), req, path, DownloadOptions{})
	if !errors.Is(err, ErrTooLarge) || res.Received > 1<<20+copyBufSize {
		t.Fatalf("chunked Download = %v (%d bytes received), want ErrTooLarge near 1 MiB", err, res.Received)
	}
	assertFileBytes(t, path, []byte("precious"))
	assertAbsent(t, path+PartSuffix, path+SidecarSuffix)
	sink = &countSink{}
	if _, err := c.Do(context.Background(), req, sink); !errors.Is(err, ErrTooLarge) || sink.n > 1<<20 {
		t.Errorf("chunked Do = %v, %d bytes written; want ErrTooLarge and at most 1 MiB", err, sink.n)
	}
}

// deltaBombOrigin answers a delta request with a tiny vcdiff that rebuilds
// megabytes of zeros from a one-line base, and a plain GET with the whole.
func deltaBombOrigin(t *testing.T, base []byte) (*httptest.Server, []byte, *atomic.Int32) {
	t.Helper()
	target := make([]byte, 8<<20)
	var delta bytes.Buffer
	if err := patch.EncodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &delta); err != nil {
		t.Fatal(err)
	}
	if delta.Len() > 64<<10 {
		t.Fatalf("the delta is %d bytes: not a bomb", delta.Len())
	}
	plain := &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v2"`)
		w.Header().Set("Repr-Digest", sha256Field(target))
		if strings.Contains(r.Header.Get("If-None-Match"), `"v1"`) && r.Header.Get("A-IM") != "" {
			w.Header().Set("IM", "vcdiff")
			w.Header().Set("Delta-Base", `"v1"`)
			w.Header().Set("Cache-Control", "no-store, im")
			w.Header().Set("Content-Length", strconv.Itoa(delta.Len()))
			w.WriteHeader(http.StatusIMUsed)
			w.Write(delta.Bytes())
			return
		}
		plain.Add(1)
		w.Write(target)
	}))
	t.Cleanup(srv.Close)
	return srv, target, plain
}

// A 226 that rebuilds far more than it and its base hold is stopped at the
// ratio bound and the whole fetched instead; over --max-filesize it is
// refused outright (the whole would be as large).
func TestDeltaBombStopped(t *testing.T) {
	c, req, plain := deltaBombStopped(t, []byte("hello\n"))

	plain.Store(0)
	sink := &countSink{}
	req.Limits = Limits{MaxFileSize: 1 << 20}
	if _, err := c.Get(context.Background(), req, sink); !errors.Is(err, ErrTooLarge) || plain.Load() != 0 {
		t.Errorf("--max-filesize: %v after %d full fetches, want ErrTooLarge and none", err, plain.Load())
	}
}

// cachedBase returns a base-version cache, closed when the test ends,
// holding base as the version etag of url.
func cachedBase(t *testing.T, url, etag string, base []byte) *cache.Cache {
	t.Helper()
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.Put(cache.Entry{URL: url, ETag: etag}, bytes.NewReader(base)); err != nil {
		t.Fatal(err)
	}
	return store
}

// The base a 226 rebuilds from is allowed once beside the ratio's bound,
// not multiplied by it as bytes received (as a compression dictionary is,
// TestDictionaryRatioCountsDictionaryOnce): a delta of a few hundred bytes
// against a 128 KiB base rebuilt 8 MiB under a 100:1 ratio, 12.8 MiB
// allowed; against a 1 GiB base at the default 1024:1, a terabyte.
func TestDeltaBombBaseCountedOnce(t *testing.T) {
	base := make([]byte, 128<<10)
	rand.New(rand.NewSource(1)).Read(base)
	deltaBombStopped(t, base)
}

// deltaBombStopped gets a delta bomb's target against base under
// smallLimits and checks the 226 was stopped at the ratio bound and the
// whole fetched once instead; it returns the client, the request (its
// cache holding base) and the origin's count of full fetches.
func deltaBombStopped(t *testing.T, base []byte) (*Client, *Request, *atomic.Int32) {
	t.Helper()
	srv, target, plain := deltaBombOrigin(t, base)
	store := cachedBase(t, srv.URL, `"v1"`, base)
	c, _ := NewClient(Options{Timeout: testStall})
	sink := &countSink{}
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store, Off: false}, Limits: smallLimits}
	res, err := c.Get(context.Background(), req, sink)
	if err != nil {
		t.Fatal(err)
	}
	if sink.n != int64(len(target)) || plain.Load() != 1 || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "--max-ratio") {
		t.Errorf("%d bytes, %d full fetches, warnings %q; want the delta stopped at the ratio and the whole fetched once", sink.n, plain.Load(), res.Verdict.Warnings)
	}
	return c, req, plain
}

// --max-filesize holds for a 304 answered from the cache too: the cached
// version it names is the body, so one over the bound is refused (exit 4)
// before a byte of it is written, to a held sink or onto -o's file.
func TestMaxFileSizeNotModifiedFromCache(t *testing.T) {
	v1 := deltaText(1)
	e := newDeltaEnv(t, "f.txt", v1)
	e.get(t, nil)
	lim := Limits{MaxFileSize: int64(len(v1)) / 2}
	sink := &countSink{}
	req := &Request{URL: e.url, Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: e.store}, Limits: lim}
	res, err := e.c.Get(context.Background(), req, sink)
	if !errors.Is(err, ErrTooLarge) || sink.n != 0 {
		t.Fatalf("Get = %v (strategy %s), %d bytes written; want ErrTooLarge and none", err, res.Strategy, sink.n)
	}
	path := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(path, []byte("precious"), 0o644)
	res, err = e.c.Download(context.Background(), req, path, DownloadOptions{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Download = %v (strategy %s), want ErrTooLarge", err, res.Strategy)
	}
	assertFileBytes(t, path, []byte("precious"))
}
