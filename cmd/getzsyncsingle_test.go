package cmd

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/fetch"
)

// singleRangeOrigin serves a file as a static host without multipart
// support does: one range answered with a 206, several with the whole file.
type singleRangeOrigin struct {
	mu        sync.Mutex
	body, ctl []byte
	whole     int // 200s to a range request
	sent      int64
	failAfter int // when > 0, range requests after this many answer 503
	ranges    int
	onRange   func() // called on each range request before it is answered
}

func (o *singleRangeOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !atFile(w, r, o.ctl) {
		return
	}
	o.mu.Lock()
	spec := r.Header.Get("Range")
	if spec != "" {
		o.ranges++
	}
	fail := o.failAfter > 0 && o.ranges > o.failAfter
	if strings.Contains(spec, ",") {
		r.Header.Del("Range")
		o.whole++
	}
	onRange := o.onRange
	o.mu.Unlock()
	if spec != "" && onRange != nil {
		onRange()
	}
	if fail {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("ETag", `"v1"`)
	cw := &countingResponse{ResponseWriter: w}
	http.ServeContent(cw, r, "", time.Time{}, bytes.NewReader(o.body))
	o.mu.Lock()
	o.sent += cw.n
	o.mu.Unlock()
}

type countingResponse struct {
	http.ResponseWriter
	n int64
}

func (c *countingResponse) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

func singleRangeSetup(t *testing.T, o *singleRangeOrigin) (url, seed, out string) {
	t.Helper()
	o.body = zsyncData(8, 1<<20)
	old := bytes.Clone(o.body)
	for k := 0; k < 10; k++ { // 10 blocks, far apart: 10 ranges
		old[k*40*2048+9] ^= 1
	}
	o.ctl = controlFor(t, o.body)
	ts := httptest.NewServer(o)
	t.Cleanup(ts.Close)
	work := t.TempDir()
	seed = filepath.Join(work, "old")
	os.WriteFile(seed, old, 0o644)
	return ts.URL + "/f.zsync", seed, filepath.Join(work, "new")
}

// TestGetZsyncSingleRangeOrigin: an origin that answers several ranges
// with the whole file gets one range per request after the first 200,
// whose body is not read: far less than the file is received.
func TestGetZsyncSingleRangeOrigin(t *testing.T) {
	o := &singleRangeOrigin{}
	url, seed, out := singleRangeSetup(t, o)
	code, stdout, errOut := runHdig(t, "get", "--json", "--no-cache", "--zsync", "--seed", seed, "-o", out, url)
	v := zsyncVerdict(t, stdout)
	if code != ExitOK || v.Transfer.Received != 10*2048 || v.Transfer.Pieces != 11 {
		t.Fatalf("hdig get --zsync = %d, %+v, %q; want 0, 10 blocks received in 1 refused and 10 single-range requests", code, v.Transfer, errOut)
	}
	if o.whole != 1 {
		t.Errorf("%d multi-range requests, want 1 (then single ranges)", o.whole)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, o.body) {
		t.Error("rebuilt file differs")
	}
}

// TestGetZsyncRangesFail: when ranges cannot be fetched (503 after the
// first), hdig exits 4 naming the bytes, and leaves no output: only the
// part and its sidecar, for the next run.
func TestGetZsyncRangesFail(t *testing.T) {
	o := &singleRangeOrigin{failAfter: 2}
	url, seed, out := singleRangeSetup(t, o)
	code, _, errOut := runHdig(t, "get", "--no-cache", "--zsync", "--seed", seed, "-o", out, url)
	if code != ExitNetwork || !strings.Contains(errOut, "could not be fetched") || !strings.Contains(errOut, "503") {
		t.Errorf("hdig get --zsync against 503s = %d, %q; want 4 naming the bytes not fetched and the 503", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the output was written")
	}
	if _, err := os.Stat(out + fetch.ZsyncSidecarSuffix); err != nil {
		t.Errorf("the part's sidecar: %v; want it kept", err)
	}
}

// TestGetZsyncInterrupted: Ctrl-C (the context cancelled) while ranges
// are being fetched, once a block came, exits 130, keeps the part file
// (bound by its sidecar) and leaves the old -o file as it was: nothing
// spliced. (Before any block came, the part holds only what the seeds
// gave, unconfirmed by the origin: it is not kept,
// TestZsyncSeedOnlyPartNotKept.)
func TestGetZsyncInterrupted(t *testing.T) {
	o := &singleRangeOrigin{}
	url, seed, out := singleRangeSetup(t, o)
	old, _ := os.ReadFile(seed)
	if err := os.WriteFile(out, old, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	o.onRange = func() {
		// The multi-range request (refused with a 200), the first single
		// range (answered), then the interruption.
		if calls.Add(1) == 3 {
			cancel()
			<-time.After(50 * time.Millisecond)
		}
	}
	code, _, errOut := runHdigCtx(t, ctx, "get", "--no-cache", "--zsync", "-o", out, url)
	if code != ExitInterrupted {
		t.Errorf("interrupted hdig get --zsync = %d, %q; want 130", code, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, old) {
		t.Error("the old -o file was changed")
	}
	for _, p := range []string{out + ".hdig-part", out + fetch.ZsyncSidecarSuffix} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%v; want it kept for the next run", err)
		}
	}
}
