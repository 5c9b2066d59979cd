package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A 206 to a request without Range, or a 226 to one without A-IM, is not
// the representation: it must not replace FILE nor reach stdout.
func TestUnaskedStatusNotWritten(t *testing.T) {
	data := genData(1000, 1)
	for _, status := range []int{http.StatusPartialContent, http.StatusIMUsed} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Content-Range", "bytes 0-9/1000")
			w.Header().Set("IM", "vcdiff")
			w.Header().Set("Content-Digest", sha256Field(data[:10]))
			w.Header().Set("Content-Length", "10")
			w.WriteHeader(status)
			w.Write(data[:10])
		}))
		defer srv.Close()
		c, _ := NewClient(Options{Timeout: testStall})
		path := filepath.Join(t.TempDir(), "f")
		os.WriteFile(path, []byte("precious"), 0o644)
		req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}

		res, err := c.Download(context.Background(), req, path, DownloadOptions{})
		if !errors.Is(err, ErrProtocol) || res == nil || res.Status != status {
			t.Errorf("%d: Download: %v (result %v), want ErrProtocol", status, err, res)
		}
		sink, err := NewFileSink(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Do(context.Background(), req, sink); !errors.Is(err, ErrProtocol) {
			t.Errorf("%d: Do: %v, want ErrProtocol", status, err)
		}
		assertFileBytes(t, path, []byte("precious"))
		assertAbsent(t, path+PartSuffix, path+SidecarSuffix)
		var out bytes.Buffer
		if _, err := c.Do(context.Background(), req, &HeldSink{Out: &out}); !errors.Is(err, ErrProtocol) || out.Len() > 0 {
			t.Errorf("%d: Do to stdout: %v, %d bytes out; want ErrProtocol and none", status, err, out.Len())
		}
	}
}

// A piece retry that meets yet another version after the restart to one
// stream ends as a protocol error (exit 5), not a bare error (exit 1).
func TestDownloadRestartGivesUp(t *testing.T) {
	o := newTestOrigin(t, 300_000)
	o.cut.Store(true)
	var n atomic.Int32
	o.set(func() {
		o.before = func(r *http.Request) bool {
			if r.Header.Get("Range") != "" {
				v := int(n.Add(1)) + 1
				o.set(func() { o.data, o.etag = genData(300_000, v), `"v`+strconv.Itoa(v)+`"` })
				o.cut.Store(true)
			}
			return true
		}
	})
	path := filepath.Join(t.TempDir(), "f")
	_, err := o.get(t, context.Background(), path, DownloadOptions{}, 1)
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("err = %v, want ErrProtocol", err)
	}
	assertAbsent(t, path, path+PartSuffix, path+SidecarSuffix)
}

// A part longer than the sidecar's length must not be committed with its
// unhashed tail.
func TestDownloadContinuePartLongerThanLength(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	f, _ := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
	f.WriteAt([]byte("garbage"), pieceTestSize+10)
	f.Close()
	opts := pieceOpts
	opts.Continue = true
	if _, err := o.get(t, context.Background(), path, opts, 0); err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
}

func TestLoadSidecarBounds(t *testing.T) {
	dir := t.TempDir()
	good := sidecar{Version: sidecarVersion, URL: "http://x/f", ETag: `"e"`, Total: 100, Algorithms: []string{"sha-256"}, Hashed: 10,
		Done: [][2]int64{{0, 20}, {40, 50}}, Pieces: []sidecarPiece{{Start: 40, End: 50, Digest: "crc32c=:AAAAAA==:"}}}
	for _, tt := range []struct {
		name   string
		edit   func(*sidecar)
		size   int64
		reason string
	}{
		{name: "good", edit: func(*sidecar) {}, size: 50},
		{name: "part longer than the length", edit: func(*sidecar) {}, size: 101, reason: "exceed the length"},
		{name: "piece reversed", edit: func(s *sidecar) { s.Pieces = []sidecarPiece{{Start: 45, End: 30}} }, size: 50, reason: "piece 45-30"},
		{name: "piece beyond", edit: func(s *sidecar) { s.Pieces = []sidecarPiece{{Start: 40, End: 60}} }, size: 50, reason: "piece 40-60"},
		{name: "piece negative", edit: func(s *sidecar) { s.Pieces = []sidecarPiece{{Start: -5, End: 10}} }, size: 50, reason: "piece -5-10"},
	} {
		p := filepath.Join(dir, tt.name)
		sc := good
		tt.edit(&sc)
		b, _ := json.Marshal(sc)
		os.WriteFile(p, b, 0o644)
		got, why := loadSidecar(p, "http://x/f", "", tt.size)
		if (got == nil) != (tt.reason != "") || !strings.Contains(why, tt.reason) {
			t.Errorf("%s: loadSidecar = %v, %q; want reason %q", tt.name, got != nil, why, tt.reason)
		}
	}
}

// countFinish counts Progress.Finish calls.
type countFinish struct {
	NoProgress
	n atomic.Int32
}

func (c *countFinish) Finish() { c.n.Add(1) }

// Download through the delta path (a cached base) still ends the display,
// and leaves no stale sidecar behind.
func TestDownloadDeltaBranch(t *testing.T) {
	o := newTestOrigin(t, 1000)
	store := cachedBase(t, o.srv.URL+"/f", `"v0"`, genData(1000, 0))
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: o.srv.URL + "/f", Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store}}
	prog := &countFinish{}
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path+SidecarSuffix, []byte("{}"), 0o644) // a stale one: the part is started over
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Progress: prog}); err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if n := prog.n.Load(); n != 1 {
		t.Errorf("Finish called %d times, want 1", n)
	}
	assertAbsent(t, path+PartSuffix, path+SidecarSuffix)

	// Finish ends the display whatever the outcome, a bad option too.
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Parallel: -1, Progress: prog}); err == nil || prog.n.Load() != 2 {
		t.Errorf("--parallel -1: %v, Finish called %d times in all, want 2", err, prog.n.Load())
	}
}

// An unusable delta met after an interrupt is the interrupt (exit 130).
func TestFallbackInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, _ := NewClient(Options{})
	_, err := c.fallback(ctx, &Request{plain: &Request{}}, DiscardSink{}, &Result{}, errDeltaFailed)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// A commit that cannot rename (FILE became a directory meanwhile) leaves no
// part behind. (A directory named up front is refused: ResolveOutput.)
func TestFileSinkCommitFailureRemovesPart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d")
	s, err := NewFileSink(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, "x"), nil, 0o644)
	s.Write([]byte("body"))
	if err := s.Commit(); err == nil {
		t.Fatal("Commit onto a directory succeeded")
	}
	assertAbsent(t, path+PartSuffix)
}

// A huge claimed length must not plan a piece per 32 MiB: the plan stays
// bounded, covers every byte, and does not overflow near MaxInt64.
func TestPlanPiecesBounded(t *testing.T) {
	for _, m := range []spans{{{0, 1 << 45}}, {{0, 5}, {1 << 40, 1<<40 + 7}}, {{math.MaxInt64 - 1<<30 - 5, math.MaxInt64}}} {
		ps := planPieces(m, maxPieceSize)
		if len(ps) > maxPlanPieces {
			t.Fatalf("%v: %d pieces, want at most %d", m, len(ps), maxPlanPieces)
		}
		var got spans
		for i, p := range ps {
			if p.id != i || p.end <= p.start {
				t.Fatalf("%v: piece %d = %d-%d", m, p.id, p.start, p.end)
			}
			got.add(p.start, p.end)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%v: pieces cover %v", m, got)
		}
	}
	if ps := planPieces(spans{{0, 100}}, 30); len(ps) != 4 || ps[3].start != 90 || ps[3].end != 100 {
		t.Errorf("small plan: %d pieces", len(ps))
	}
}

// An origin claiming an absurd Content-Length fails fast, without planning
// (or allocating) a piece per 32 MiB of it.
func TestDownloadHugeLength(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "" {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nETag: \"v1\"\r\nAccept-Ranges: bytes\r\nContent-Length: " +
			strconv.FormatInt(math.MaxInt64-5, 10) + "\r\n\r\nsome bytes")
		buf.Flush()
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	// A download that never ends is reported by go test's -timeout.
	if _, err := c.Download(context.Background(), &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}, path, DownloadOptions{}); err == nil {
		t.Fatal("Download succeeded")
	}
	assertAbsent(t, path, path+PartSuffix, path+SidecarSuffix)
}

// errAfter yields b, then err.
type errAfter struct {
	b   []byte
	err error
}

func (r *errAfter) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, r.err
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// A connection that breaks after a single range's bytes, before the end of
// the body (and its trailer), is a failure, not a clean end.
func TestExactReaderEndError(t *testing.T) {
	reset := &readError{err: errors.New("connection reset")}
	_, err := io.ReadAll(&exactReader{r: &errAfter{b: []byte("0123"), err: reset}, left: 4, what: "bytes 0-3/10"})
	if !errors.Is(err, reset) {
		t.Errorf("err = %v, want the reset", err)
	}
	_, err = io.ReadAll(&exactReader{r: &errAfter{b: []byte("01234"), err: io.EOF}, left: 4, what: "bytes 0-3/10"})
	if !errors.Is(err, ErrProtocol) {
		t.Errorf("err = %v, want ErrProtocol for a longer body", err)
	}
	got, err := io.ReadAll(&exactReader{r: &errAfter{b: []byte("0123"), err: io.EOF}, left: 4, what: "bytes 0-3/10"})
	if err != nil || string(got) != "0123" {
		t.Errorf("got %q, %v", got, err)
	}
}
