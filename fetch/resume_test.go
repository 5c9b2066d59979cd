package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// cancelAfter is a Progress that cancels the download after n pieces.
type cancelAfter struct {
	NoProgress
	n      int32
	done   atomic.Int32
	cancel context.CancelFunc
}

func (c *cancelAfter) Piece(int, int64, int64) PieceProgress { return c }
func (c *cancelAfter) Add(int)                               {}
func (c *cancelAfter) Done(ok bool) {
	if ok && c.done.Add(1) == c.n {
		c.cancel()
	}
}

// interrupt downloads until n pieces are done and then cancels; range
// requests that allow rejects are held until then.
func interrupt(t *testing.T, o *testOrigin, path string, n int32, allow func(rng string) bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o.set(func() {
		o.before = func(r *http.Request) bool {
			if rng := r.Header.Get("Range"); rng != "" && !allow(rng) {
				<-r.Context().Done()
				return false
			}
			return true
		}
	})
	opts := pieceOpts
	opts.Progress = &cancelAfter{n: n, cancel: cancel}
	res, err := o.get(t, ctx, path, opts, 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res.Part != Beside(path, PartSuffix) {
		t.Fatalf("Part = %q, want the part kept", res.Part)
	}
	o.set(func() { o.before, o.stall = nil, false })
}

// firstPieces allows the ranges of pieces 1 to 3.
func firstPieces(rng string) bool {
	for _, p := range []string{"bytes=262144-", "bytes=524288-", "bytes=786432-"} {
		if strings.HasPrefix(rng, p) {
			return true
		}
	}
	return false
}

func TestDownloadInterruptAndContinue(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	b, err := os.ReadFile(path + SidecarSuffix)
	if err != nil {
		t.Fatal(err)
	}
	var sc sidecar
	if err := json.Unmarshal(b, &sc); err != nil || sc.ETag != `"v1"` || sc.Hashed != 1<<20 || sc.Total != pieceTestSize {
		t.Fatalf("sidecar %s (%v)", b, err)
	}
	assertAbsent(t, path)
	res := continueRun(t, o, path)
	data, _ := o.current()
	assertAbsent(t, path+PartSuffix, path+SidecarSuffix)
	if want := int64(len(data) - 1<<20); res.Received != want || res.Strategy != StrategyRanges || res.Outcome() != verify.Verified {
		t.Errorf("received %d (want %d), strategy %s, outcome %s", res.Received, want, res.Strategy, res.Outcome())
	}
	if !res.Verdict.Verified(verify.ReprDigest) {
		t.Errorf("checks %v", res.Verdict.Checks)
	}
}

func TestDownloadContinueChangedFile(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	o.setVersion(pieceTestSize, 2)
	res, err := o.get(t, context.Background(), path, DownloadOptions{Continue: true, Parallel: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if res.ETag != `"v2"` || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "part was discarded") {
		t.Errorf("ETag %s, warnings %q", res.ETag, res.Verdict.Warnings)
	}
}

func TestDownloadContinueWithoutSidecar(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	path := filepath.Join(t.TempDir(), "f")
	const have = 1_000_000
	os.WriteFile(path+PartSuffix, data[:have], 0o644)
	res, err := o.get(t, context.Background(), path, DownloadOptions{Continue: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertFileBytes(t, path, data)
	if res.Received != int64(len(data)-have) || !res.Verdict.Verified(verify.ReprDigest) {
		t.Errorf("received %d, want %d; checks %v", res.Received, len(data)-have, res.Verdict.Checks)
	}
}

func TestDownloadContinueBadPart(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	path := filepath.Join(t.TempDir(), "f")
	bad := []byte(strings.Repeat("x", 1000))
	os.WriteFile(path+PartSuffix, bad, 0o644)
	res, err := o.get(t, context.Background(), path, DownloadOptions{Continue: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertFileBytes(t, path, data)
	if res.Received != int64(2*len(data)-len(bad)) || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "fetched again in full") {
		t.Errorf("received %d, warnings %q", res.Received, res.Verdict.Warnings)
	}
}

func TestDownloadContinueComplete(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, data, 0o644)
	res, err := o.get(t, context.Background(), path, DownloadOptions{Continue: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Received != 0 || res.Strategy != StrategyNotModified || res.Outcome() != verify.Verified {
		t.Errorf("received %d, strategy %s, outcome %s", res.Received, res.Strategy, res.Outcome())
	}
	// A stale FILE is replaced, once the new bytes verified.
	o.setVersion(pieceTestSize, 3)
	res, err = o.get(t, context.Background(), path, DownloadOptions{Continue: true}, 0)
	if err != nil || res.Received != int64(len(data)) {
		t.Fatalf("received %d, %v", res.Received, err)
	}
	data, _ = o.current()
	assertFileBytes(t, path, data)
}

func TestDownloadContinueCorruptKeptPiece(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	// Piece 0 stalls: pieces 1 to 3 lie beyond the hashed prefix, with
	// their Content-Digest in the sidecar. Then one of them is damaged.
	o.set(func() { o.stall = true })
	interrupt(t, o, path, 3, firstPieces)
	res := continueDamaged(t, o, path, "bytes 524288-786431 of the part no longer match their Content-Digest")
	data, _ := o.current()
	if res.Received >= int64(len(data)-2<<18) {
		t.Errorf("received %d: pieces 1 and 3 were fetched again", res.Received)
	}
}

func TestDownloadContinueChangedPart(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	res := continueGarbage(t, o, path, 100_000) // within the hashed prefix
	if w := strings.Join(res.Verdict.Warnings, "\n"); !strings.Contains(w, "hashed again") || !strings.Contains(w, "fetched again in full") {
		t.Errorf("warnings %q", res.Verdict.Warnings)
	}
}

func TestDownloadFailureKeepsPartOnlyWithContinue(t *testing.T) {
	for _, cont := range []bool{false, true} {
		o := newTestOrigin(t, pieceTestSize)
		o.tamper = func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
			if strings.HasPrefix(h.Get("Content-Range"), "bytes 1048576-") {
				return http.StatusInternalServerError, nil
			}
			return s, b
		}
		path := filepath.Join(t.TempDir(), "f")
		opts := pieceOpts
		opts.Continue = cont
		res, err := o.get(t, context.Background(), path, opts, 0)
		var se *StatusError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v, want a status error", err)
		}
		_, statErr := os.Stat(path + PartSuffix)
		if kept := statErr == nil; kept != cont || (res.Part != "") != cont {
			t.Errorf("-C %v: part kept %v (Part %q)", cont, kept, res.Part)
		}
	}
}

func TestLoadSidecar(t *testing.T) {
	dir := t.TempDir()
	good := sidecar{Version: sidecarVersion, URL: "http://x/f", ETag: `"e"`, Total: 100, Algorithms: []string{"sha-256"}, Hashed: 10, Done: [][2]int64{{0, 20}, {40, 50}}}
	for _, tt := range []struct {
		name   string
		edit   func(*sidecar)
		raw    string
		size   int64
		reason string
	}{
		{name: "good", edit: func(*sidecar) {}, size: 50},
		{name: "other URL", edit: func(s *sidecar) { s.URL = "http://y/f" }, size: 50, reason: "it is for"},
		{name: "part too short", edit: func(*sidecar) {}, size: 45, reason: "beyond the part"},
		{name: "overlap", edit: func(s *sidecar) { s.Done = [][2]int64{{0, 20}, {10, 30}} }, size: 50, reason: "out of order"},
		{name: "hashed beyond", edit: func(s *sidecar) { s.Hashed = 30 }, size: 50, reason: "hashed 30"},
		{name: "algorithm", edit: func(s *sidecar) { s.Algorithms = []string{"sha-3"} }, size: 50, reason: "unknown algorithm"},
		{name: "version", edit: func(s *sidecar) { s.Version = 4 }, size: 50, reason: "version 4"},
		// Version 1 did not bind the Host: the part's virtual host is unknown.
		{name: "version 1", edit: func(s *sidecar) { s.Version = 1 }, size: 50, reason: "version 1"},
		// Version 2 did not record the Last-Modified: without a strong ETag,
		// nothing would tell the part's version from another.
		{name: "version 2", edit: func(s *sidecar) { s.Version = 2 }, size: 50, reason: "version 2"},
		{name: "Last-Modified", edit: func(s *sidecar) {
			s.ETag, s.LastModified, s.LastModifiedIfRange = "", "Sun, 09 Sep 2001 01:46:40 GMT", true
		}, size: 50},
		// It goes out as If-Range: an IMF-fixdate as saved, no line break.
		{name: "Last-Modified not a date", edit: func(s *sidecar) { s.LastModified = "Sun, 09 Sep 2001 01:46:40 GMT\r\nX-A: b" }, size: 50, reason: "Last-Modified"},
		{name: "If-Range without a date", edit: func(s *sidecar) { s.LastModifiedIfRange = true }, size: 50, reason: "Last-Modified"},
		// RFC 9110 §13.1.5: no date If-Range for a representation that has
		// an entity tag, weak included (modifiedOf never records both).
		{name: "If-Range by date beside a weak ETag", edit: func(s *sidecar) {
			s.ETag, s.LastModified, s.LastModifiedIfRange, s.WeakETag = "", "Sun, 09 Sep 2001 01:46:40 GMT", true, `W/"e"`
		}, size: 50, reason: "entity tag"},
		{name: "other Host", edit: func(s *sidecar) { s.Host = "b.example" }, size: 50, reason: "Host"},
		{name: "not JSON", raw: "{", size: 50, reason: "not JSON"},
		// Pieces are re-hashed one by one (checkKept): the same bytes named
		// again and again would be read again and again.
		{name: "pieces in any order", edit: func(s *sidecar) {
			s.Pieces = []sidecarPiece{{Start: 40, End: 50, Digest: "x"}, {Start: 10, End: 20, Digest: "x"}}
		}, size: 50},
		// Its ETag goes out as If-Range: only a strong one, as saved, and
		// never a line break into the request.
		{name: "weak ETag", edit: func(s *sidecar) { s.ETag = `W/"e"` }, size: 50, reason: "ETag"},
		{name: "ETag with CRLF", edit: func(s *sidecar) { s.ETag = "\"e\"\r\nX-A: b" }, size: 50, reason: "ETag"},
		{name: "pieces overlap", edit: func(s *sidecar) {
			s.Pieces = []sidecarPiece{{Start: 0, End: 50, Digest: "x"}, {Start: 0, End: 50, Digest: "x"}}
		}, size: 50, reason: "overlap"},
	} {
		p := filepath.Join(dir, tt.name)
		b := []byte(tt.raw)
		if tt.edit != nil {
			sc := good
			tt.edit(&sc)
			b, _ = json.Marshal(sc)
		}
		os.WriteFile(p, b, 0o644)
		sc, why := loadSidecar(p, "http://x/f", "", tt.size)
		if (sc == nil) != (tt.reason != "") || !strings.Contains(why, tt.reason) {
			t.Errorf("%s: loadSidecar = %v, %q; want reason %q", tt.name, sc != nil, why, tt.reason)
		}
	}
	if sc, why := loadSidecar(filepath.Join(dir, "none"), "", "", 0); sc != nil || why != "" {
		t.Errorf("missing sidecar: %v, %q", sc, why)
	}
}

// TestDownloadContinueZsyncPart: -C on a part an interrupted zsync run
// left (blocks with a hole between them) does not resume from its end: it
// starts over, and drops the zsync sidecar.
func TestDownloadContinueZsyncPart(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	path := filepath.Join(t.TempDir(), "f")
	const have = 1_000_000
	part := append([]byte(nil), data[:have]...)
	clear(part[4096:8192]) // a block not fetched yet
	os.WriteFile(path+PartSuffix, part, 0o644)
	os.WriteFile(path+ZsyncSidecarSuffix, []byte(`{"sha1":"00"}`), 0o644)
	res, err := o.get(t, context.Background(), path, DownloadOptions{Continue: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertFileBytes(t, path, data)
	if res.Received != int64(len(data)) || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "zsync") {
		t.Errorf("received %d, want %d (started over); warnings %q", res.Received, len(data), res.Verdict.Warnings)
	}
	if _, err := os.Stat(path + ZsyncSidecarSuffix); err == nil {
		t.Error("the zsync sidecar was left")
	}
}

// A kept piece whose saved Content-Digest names only algorithms hdig does
// not know cannot be checked on resume: it is fetched again, as a piece
// that no longer matches is, never kept unchecked (here it was damaged,
// and only the whole file's Repr-Digest, after the fact, would have seen it).
func TestDownloadContinueUncheckableKeptPiece(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	o.set(func() { o.stall = true })
	interrupt(t, o, path, 3, firstPieces)
	b, err := os.ReadFile(path + SidecarSuffix)
	if err != nil {
		t.Fatal(err)
	}
	var sc sidecar
	if err := json.Unmarshal(b, &sc); err != nil || len(sc.Pieces) == 0 {
		t.Fatalf("sidecar %s: %v", b, err)
	}
	for i := range sc.Pieces {
		sc.Pieces[i].Digest = "x-unknown=:AAAA:"
	}
	if b, err = json.Marshal(sc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+SidecarSuffix, b, 0o600); err != nil {
		t.Fatal(err)
	}
	continueDamaged(t, o, path, "bytes 524288-786431 of the part: no digest hdig can check")
}

// continueGarbage writes garbage into the part of an interrupted download
// at offset at, resumes it with -C, and checks the file is the origin's.
func continueGarbage(t *testing.T, o *testOrigin, path string, at int64) *Result {
	t.Helper()
	f, _ := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
	f.WriteAt([]byte("garbage"), at)
	f.Close()
	return continueRun(t, o, path)
}

// continueRun resumes the interrupted download of path with -C and checks
// the file is the origin's.
func continueRun(t *testing.T, o *testOrigin, path string) *Result {
	t.Helper()
	opts := pieceOpts
	opts.Continue = true
	res, err := o.get(t, context.Background(), path, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	return res
}

// continueDamaged damages the part of an interrupted download in its third
// piece, resumes it, and checks that the file is the origin's and that a
// warning says want (and none that it started over in full).
func continueDamaged(t *testing.T, o *testOrigin, path, want string) *Result {
	t.Helper()
	res := continueGarbage(t, o, path, 600_000)
	warnings := strings.Join(res.Verdict.Warnings, "\n")
	if !strings.Contains(warnings, want) || strings.Contains(warnings, "in full") {
		t.Errorf("warnings %q, want %q", res.Verdict.Warnings, want)
	}
	return res
}
