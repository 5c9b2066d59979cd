package fetch

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

// oneStreamSize is large enough for the default to plan pieces.
const oneStreamSize = parallelFrom + 1<<20 + 333

// By default a download the size splits starts as one stream and, while
// that stream stays fast (here: never measured), reads every piece from
// the first response: no Range request, the whole verified, reported as
// one full response.
func TestDefaultOneStreamWhileFast(t *testing.T) {
	o := newTestOrigin(t, oneStreamSize)
	path := filepath.Join(t.TempDir(), "f")
	res, err := o.get(t, context.Background(), path, DownloadOptions{splitAfter: time.Hour}, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	assertAbsent(t, path+PartSuffix, path+SidecarSuffix)
	if n := o.ranges.Load(); n != 0 {
		t.Errorf("%d range requests, want 0: one stream", n)
	}
	if res.Strategy != StrategyFull || res.Pieces != 1 || res.Received != int64(len(data)) || res.Outcome() != verify.Verified {
		t.Errorf("%s, %d pieces, %d received, %s; want full, 1, %d, verified", res.Strategy, res.Pieces, res.Received, res.Outcome(), len(data))
	}
	if !res.Verdict.Verified(verify.ReprDigest) || !res.Verdict.Verified(verify.ContentDigest) {
		t.Errorf("checks %v", res.Verdict.Checks)
	}
}

// A first stream slower than the bound (here: any) opens the gate at the
// first measure: the pieces left come by Range requests, each checked, and
// the file is whole.
func TestDefaultSplitsSlowStream(t *testing.T) {
	o := newTestOrigin(t, oneStreamSize)
	path := filepath.Join(t.TempDir(), "f")
	res, err := o.get(t, context.Background(), path, DownloadOptions{splitAfter: time.Millisecond, slowStream: 1 << 50}, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if o.ranges.Load() == 0 {
		t.Errorf("no range request: the slow stream was not split")
	}
	if res.Strategy != StrategyRanges || res.Received != int64(len(data)) || res.Outcome() != verify.Verified {
		t.Errorf("%s, %d received, %s; want ranges, %d, verified", res.Strategy, res.Received, res.Outcome(), len(data))
	}
}

// --parallel N splits at once, whatever the first stream's rate.
func TestExplicitParallelSplitsAtOnce(t *testing.T) {
	o := newTestOrigin(t, oneStreamSize)
	path := filepath.Join(t.TempDir(), "f")
	if _, err := o.get(t, context.Background(), path, DownloadOptions{Parallel: 2, splitAfter: time.Hour}, 0); err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if o.ranges.Load() == 0 {
		t.Errorf("no range request with --parallel 2")
	}
}

// The gate's watch reads the plan from its own goroutine. A first stream
// that breaks, and whose retry by Range meets a new version, restarts the
// download, which plans again: transfer returns only once the watch is
// done, or the new plan is written while the watch may read the old one
// (go test -race reports it in about one run in five: the runtime's
// timers sometimes order the watch's read first). The file is then the
// new version, whole.
func TestOneStreamRestartAfterWatch(t *testing.T) {
	o := newTestOrigin(t, oneStreamSize)
	o.cut.Store(true)
	var once sync.Once
	o.before = func(r *http.Request) bool {
		if r.Header.Get("Range") != "" {
			once.Do(func() { o.setVersion(oneStreamSize, 2) })
		}
		return true
	}
	path := filepath.Join(t.TempDir(), "f")
	res, err := o.get(t, context.Background(), path, DownloadOptions{splitAfter: time.Hour}, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if res.Outcome() != verify.Verified {
		t.Errorf("%s after the restart, want verified", res.Outcome())
	}
}

// A resumed part that fails Repr-Digest is fetched again in full; when
// that is one stream, the result says so (full, one piece), not the range
// requests of the resume it replaced.
func TestOneStreamAfterFailedResumeReportsFull(t *testing.T) {
	o := newTestOrigin(t, oneStreamSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	f, err := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("garbage"), 100_000) // within the hashed prefix
	f.Close()
	res, err := o.get(t, context.Background(), path, DownloadOptions{Continue: true, splitAfter: time.Hour}, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "fetched again in full") {
		t.Fatalf("warnings %q, want the part fetched again in full", res.Verdict.Warnings)
	}
	if res.Strategy != StrategyFull || res.Pieces != 1 {
		t.Errorf("%s, %d pieces after a one-stream refetch; want full, 1", res.Strategy, res.Pieces)
	}
}
