package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hdig/hdig/fileid"
)

func withStreamAt(n int64) Option {
	return func(c *config) error { c.streamAt = n; return nil }
}

// getTE sends a GET with the given header lines (name, value pairs) and
// reads the whole body; the trailer is in resp.Trailer.
func getTE(t *testing.T, url string, kv ...string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	must(t, err)
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	must(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// A file not hashed yet is sent at once to a client that takes trailers:
// no hash pass before the header, no ETag, Repr-Digest and Content-Digest
// as trailers, over exactly the bytes sent. The digests are then known:
// the next GET has them in its header without hashing.
func TestStreamUnindexedWithTrailers(t *testing.T) {
	dir := fixture(t) // data.bin: 1 MiB
	_, ts := start(t, dir, WithSettle(0), withStreamAt(64<<10))
	passes := hashPasses.Load()
	resp, body, err := getTE(t, ts.URL+"/data.bin", "TE", "trailers", "Want-Content-Digest", "sha-256=1")
	must(t, err)
	if resp.StatusCode != http.StatusOK || string(body) != string(binData) {
		t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
	}
	if n := hashPasses.Load() - passes; n != 0 {
		t.Errorf("%d hash passes before the body, want 0", n)
	}
	if e := resp.Header.Get("ETag"); e != "" {
		t.Errorf("ETag %q before the bytes were hashed", e)
	}
	if resp.Header.Get("Repr-Digest") != "" || resp.Header.Get("Content-Digest") != "" {
		t.Errorf("digest fields in the header: %v", resp.Header)
	}
	want := sfSHA256(body)
	for _, k := range []string{"Repr-Digest", "Content-Digest"} {
		if got := resp.Trailer.Get(k); got != want {
			t.Errorf("trailer %s = %q, want %q", k, got, want)
		}
	}
	// Known now, and trusted: in the header, with the ETag, no hash pass.
	resp, body, err = getTE(t, ts.URL+"/data.bin", "TE", "trailers")
	must(t, err)
	sum := sha256.Sum256(body)
	if resp.Header.Get("ETag") != etagFor(sum[:]) || resp.Header.Get("Repr-Digest") != want {
		t.Errorf("second GET: ETag %q, Repr-Digest %q; want %q, %q", resp.Header.Get("ETag"), resp.Header.Get("Repr-Digest"), etagFor(sum[:]), want)
	}
	if n := hashPasses.Load() - passes; n != 0 {
		t.Errorf("%d hash passes for a file whose digests were streamed, want 0", n)
	}
}

// Without TE: trailers, or for a file changed within the settle window,
// the digests come first, in the header, as before.
func TestStreamNeedsTrailersAndSettled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		settle bool
		te     string
	}{{"no TE", true, ""}, {"unsettled", false, "trailers"}} {
		t.Run(tc.name, func(t *testing.T) {
			settle := WithSettle(0)
			if !tc.settle {
				settle = WithSettle(1 << 62)
			}
			_, ts := start(t, fixture(t), settle, withStreamAt(64<<10))
			resp, body, err := getTE(t, ts.URL+"/data.bin", "TE", tc.te)
			must(t, err)
			sum := sha256.Sum256(body)
			if resp.Header.Get("ETag") != etagFor(sum[:]) || resp.Header.Get("Repr-Digest") != sfSHA256(body) {
				t.Errorf("ETag %q, Repr-Digest %q: want them in the header", resp.Header.Get("ETag"), resp.Header.Get("Repr-Digest"))
			}
		})
	}
}

// A file written while it streams never ends with a clean trailer: its ID
// changed, so the connection is cut before the last byte.
func TestStreamChangedFileCut(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithSettle(0), withStreamAt(64<<10))
	p := filepath.Join(dir, "data.bin")
	id, err := fileid.Stat(p)
	must(t, err)
	waitCTimeTick(t, dir, id) // the write below gets a new change time
	guardHook = func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err == nil {
			f.WriteAt([]byte("changed"), 1000)
			f.Close()
		}
	}
	defer func() { guardHook = nil }()
	resp, _, err := getTE(t, ts.URL+"/data.bin", "TE", "trailers")
	if err == nil {
		t.Fatalf("a file changed while it streamed ended cleanly, trailer %v", resp.Trailer)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) && resp.Trailer.Get("Repr-Digest") != "" {
		t.Errorf("cut stream carried a Repr-Digest trailer %q", resp.Trailer.Get("Repr-Digest"))
	}
}

// The indexer hashes each settled file once; a restart with the same
// state directory hashes nothing, and its first GET has the digests
// without a hash pass. An entry whose file changed (same size and mtime,
// new ctime) is never used.
func TestIndexerRestartReusesIndex(t *testing.T) {
	dir, state := fixture(t), t.TempDir()
	s1, err := New(dir, WithStateDir(state), WithSettle(0))
	must(t, err)
	if hashed, _ := s1.indexPass(context.Background()); hashed != 4 || s1.indexHashes.Load() != 4 {
		t.Errorf("first pass hashed %d files (counter %d), want 4 (hello.json, text.txt, data.bin, sub/a.txt)", hashed, s1.indexHashes.Load())
	}
	if hashed, _ := s1.indexPass(context.Background()); hashed != 0 {
		t.Errorf("second pass hashed %d files, want 0", hashed)
	}
	must(t, s1.Close())

	s2, ts := start(t, dir, WithStateDir(state), WithSettle(0))
	if hashed, _ := s2.indexPass(context.Background()); hashed != 0 || s2.indexHashes.Load() != 0 {
		t.Errorf("after a restart a pass hashed %d files, want 0", hashed)
	}
	passes := hashPasses.Load()
	wantTruthful(t, raw(t, ts, "GET", "/data.bin"))
	if n := hashPasses.Load() - passes; n != 0 {
		t.Errorf("first GET after a restart: %d hash passes, want 0", n)
	}
	editKeepingTimes(t, filepath.Join(dir, "hello.json"), 3, []byte("H"))
	r := raw(t, ts, "GET", "/hello.json")
	wantTruthful(t, r)
	if string(r.body[3]) != "H" {
		t.Fatalf("body %q", r.body)
	}
	if hashed, _ := s2.indexPass(context.Background()); hashed != 0 {
		t.Errorf("the edited file was hashed again by the indexer (%d), want 0: the GET recorded it", hashed)
	}
}

// Lines of the index file that do not parse, or name a weak ID, are
// skipped; the others load.
func TestIndexFileDamaged(t *testing.T) {
	state := t.TempDir()
	good := formatIndexLine(indexKey{"a b\n.txt", fileid.ID{Size: 1, MTime: 2, CTime: 3, Dev: 4, Ino: 5}}, make([]byte, 32))
	weak := formatIndexLine(indexKey{"w", fileid.ID{Size: 1, MTime: 2}}, make([]byte, 32))
	content := indexMagic + "\n" + "garbage\n" + "zz 1 2 3 4 5 \"x\"\n" + weak + good + "00 1 2 3 4 5 \"short\"\n"
	must(t, os.WriteFile(filepath.Join(state, indexFile), []byte(content), 0o644))
	x, err := openIndex(state)
	must(t, err)
	defer x.close()
	if len(x.m) != 1 {
		t.Errorf("%d entries loaded, want 1", len(x.m))
	}
	if _, ok := x.lookup("a b\n.txt", fileid.ID{Size: 1, MTime: 2, CTime: 3, Dev: 4, Ino: 5}); !ok {
		t.Error("the good line was not loaded")
	}
}

// A name keeps one version in the index: the entry of the version a file
// had before is forgotten, also when the index is loaded again.
func TestIndexOneVersionPerName(t *testing.T) {
	state := t.TempDir()
	x, err := openIndex(state)
	must(t, err)
	v1 := fileid.ID{Size: 1, MTime: 2, CTime: 3, Dev: 4, Ino: 5}
	v2 := v1
	v2.CTime = 9
	x.add("f", v1, make([]byte, 32))
	x.add("f", v2, make([]byte, 32))
	x.close()
	for i, y := range []*digestIndex{x, func() *digestIndex { y, err := openIndex(state); must(t, err); return y }()} {
		if _, ok := y.lookup("f", v1); ok || len(y.m) != 1 {
			t.Errorf("index %d: %d entries, the old version kept: %v", i, len(y.m), ok)
		}
		if _, ok := y.lookup("f", v2); !ok {
			t.Errorf("index %d: the current version lost", i)
		}
	}
}

// countReader counts the reads that reach it.
type countReader struct{ n int }

func (c *countReader) Read(p []byte) (int, error) { c.n++; return len(p), nil }

// The indexer reads nothing while a request hashes: its read waits (here
// until it is given up), and then reads at most indexChunk bytes.
func TestIndexerYieldsToHashingRequests(t *testing.T) {
	src := &countReader{}
	ctx, cancel := context.WithCancel(context.Background())
	requestHashing.Add(1)
	done := make(chan error)
	go func() {
		_, err := (&yieldReader{ctx: ctx, r: src}).Read(make([]byte, 4<<20))
		done <- err
	}()
	cancel()
	err := <-done
	requestHashing.Add(-1)
	if !errors.Is(err, context.Canceled) || src.n != 0 {
		t.Errorf("read while a request hashed: err %v, %d reads, want context.Canceled and none", err, src.n)
	}
	buf := make([]byte, 4<<20)
	n, err := (&yieldReader{ctx: context.Background(), r: src}).Read(buf)
	if err != nil || n != indexChunk || src.n != 1 {
		t.Errorf("read with no request hashing: %d bytes, %d reads, %v; want %d, 1", n, src.n, err, indexChunk)
	}
}

// A file truncated to nothing after the header went out, before the first
// byte was read, sends no byte at all: the guard holds none back, yet the
// body is still short of the size announced (a streamed 200, a 206 whose
// Content-Digest is a trailer). Such a response is cut, never ended
// cleanly with digest trailers over bytes that were not sent.
func TestTruncatedBeforeFirstByteCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"stream", []string{"TE", "trailers", "Want-Content-Digest", "sha-256"}},
		{"range trailer", []string{"Range", "bytes=0-300000", "Want-Content-Digest", "sha-256"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t)
			opts := []Option{WithSettle(0), withStreamAt(64 << 10)}
			if tc.name != "stream" {
				opts = append(opts, WithHeaderDigestLimit(1<<10))
			}
			_, ts := start(t, dir, opts...)
			p := filepath.Join(dir, "data.bin")
			guardHook = func() { must(t, os.Truncate(p, 0)) }
			defer func() { guardHook = nil }()
			resp, body, err := getTE(t, ts.URL+"/data.bin", tc.kv...)
			if err == nil {
				t.Errorf("status %d: %d bytes ended cleanly, trailer %v", resp.StatusCode, len(body), resp.Trailer)
			}
		})
	}
}

// The index file stays within a bound of the entries held while the server
// runs: a file that keeps changing (or is uploaded again and again) adds a
// line per version, the superseded ones are compacted away as they pile up,
// not only at the next start.
func TestIndexFileBoundedWhileRunning(t *testing.T) {
	state := t.TempDir()
	x, err := openIndex(state)
	must(t, err)
	defer x.close()
	id := fileid.ID{Size: 1, MTime: 2, CTime: 3, Dev: 4, Ino: 5}
	const versions = 20000
	for i := range versions {
		id.CTime = int64(10 + i)
		x.add("f", id, make([]byte, 32))
	}
	b, err := os.ReadFile(filepath.Join(state, indexFile))
	must(t, err)
	if n := bytes.Count(b, []byte("\n")); n > 2*len(x.m)+1024+1 {
		t.Errorf("index file has %d lines for %d entries", n, len(x.m))
	}
	y, err := openIndex(state)
	must(t, err)
	defer y.close()
	if _, ok := y.lookup("f", id); !ok || len(y.m) != 1 {
		t.Errorf("reloaded: %d entries, current version found: %v", len(y.m), ok)
	}
}

// A compressible file streamed as it is (the client named no coding)
// still says Vary: Accept-Encoding: a client that accepts gzip gets
// another representation from the same URL, and a cache must not hand it
// this one.
func TestStreamedCompressibleVaries(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "big.txt"), bytes.Repeat([]byte("a line of text to compress\n"), 80_000), 0o644))
	_, ts := start(t, dir, WithSettle(0), withStreamAt(64<<10))
	resp, _, err := getTE(t, ts.URL+"/big.txt", "TE", "trailers", "Accept-Encoding", "identity")
	must(t, err)
	if resp.Trailer.Get("Repr-Digest") == "" {
		t.Fatalf("not streamed: header %v", resp.Header)
	}
	if v := resp.Header.Values("Vary"); !slices.Contains(v, "Accept-Encoding") {
		t.Errorf("streamed compressible file: Vary %q, want Accept-Encoding", v)
	}
}
