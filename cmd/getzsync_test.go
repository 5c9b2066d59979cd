package cmd

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
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
	"github.com/hdig/hdig/zsync"
)

func zsyncData(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestGetZsyncFromServe: hdig get --zsync rebuilds a file hdig serve
// publishes from an old copy with scattered edits and an insertion near
// the start, fetching only the blocks the copy lacks.
func TestGetZsyncFromServe(t *testing.T) {
	dir := t.TempDir()
	cur := zsyncData(1, 2<<20)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "data.bin"), cur, 0o644))
	old := append([]byte("inserted!"), cur...)
	for k := 1; k <= 10; k++ {
		old[k*150_000] ^= 0xff
	}
	work := t.TempDir()
	seed := filepath.Join(work, "old.bin")
	must(os.WriteFile(seed, old, 0o644))
	url := startServe(t, dir)
	out := filepath.Join(work, "new.bin")
	code, stdout, errOut := runHdig(t, "get", "--json", "--zsync", "--no-cache", "--seed", seed, "-o", out, url+"data.bin.zsync")
	if code != ExitOK {
		t.Fatalf("hdig get --zsync = %d: %s", code, errOut)
	}
	got, err := os.ReadFile(out)
	must(err)
	if !bytes.Equal(got, cur) {
		t.Fatal("rebuilt file differs from the served one")
	}
	v := zsyncVerdict(t, stdout)
	fetched := v.Transfer.Received
	if v.Verdict != "verified" || v.Transfer.Strategy != "zsync" || v.Transfer.Reused+fetched < int64(len(cur)) {
		t.Errorf("verdict %s, strategy %s, reused %d + received %d; want verified, zsync, at least %d", v.Verdict, v.Transfer.Strategy, v.Transfer.Reused, fetched, len(cur))
	}
	// 11 changed blocks (10 edits, the insertion), each at most 2 blocks
	// with its neighbours joined across the 4096-byte coalescing gap.
	if fetched == 0 || fetched > 11*3*2048 {
		t.Errorf("fetched %d bytes, want 1 to %d", fetched, 11*3*2048)
	}
	t.Logf("%s", strings.TrimSpace(errOut))
}

// TestGetZsyncRefusesWrongBlocks: a control file that does not describe the
// served file (an older .zsync left beside a new file) fails with exit 1,
// naming the block, and writes nothing.
func TestGetZsyncRefusesWrongBlocks(t *testing.T) {
	dir := t.TempDir()
	cur := zsyncData(2, 100_000)
	os.WriteFile(filepath.Join(dir, "data.bin"), cur, 0o644)
	stale := zsyncData(3, 100_000)
	ctl, err := zsync.Make(bytes.NewReader(stale), int64(len(stale)), zsync.MakeOptions{URL: "data.bin"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ctl.WriteTo(&buf)
	os.WriteFile(filepath.Join(dir, "data.bin.zsync"), buf.Bytes(), 0o644)
	url := startServe(t, dir)
	out := filepath.Join(t.TempDir(), "new.bin")
	code, _, errOut := runHdig(t, "get", "--zsync", "-o", out, url+"data.bin.zsync")
	if code != ExitIntegrity || !strings.Contains(errOut, "does not match its checksums") {
		t.Errorf("hdig get --zsync of a stale control file = %d, %q; want 1 and a block mismatch", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the output was written")
	}
	for _, p := range []string{out + ".hdig-part", out + fetch.ZsyncSidecarSuffix} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was left behind", p)
		}
	}
}

func TestGetZsyncUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "--zsync", "http://127.0.0.1:1/f.zsync"}, "--zsync needs -o FILE"},
		{[]string{"get", "--seed", "x", "-o", "y", "http://127.0.0.1:1/f"}, "--seed applies only with --zsync"},
		{[]string{"get", "--zsync", "-r", "0-1", "-o", "y", "http://127.0.0.1:1/f.zsync"}, "cannot be used with -r"},
		// Output the zsync path does not write is refused, not dropped.
		{[]string{"get", "--zsync", "-w", "%{http_code}", "-o", "y", "http://127.0.0.1:1/f.zsync"}, "cannot be used with -w"},
		{[]string{"get", "--zsync", "-D", "/dev/null", "-o", "y", "http://127.0.0.1:1/f.zsync"}, "cannot be used with -D"},
		{[]string{"get", "--zsync", "-m", "5", "-o", "y", "http://127.0.0.1:1/f.zsync"}, "cannot be used with -m"},
	} {
		code, _, errOut := runHdig(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("hdig %v = %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// zsyncOrigin serves a file and its control file with http.ServeContent
// and records the If-Range of each range request.
type zsyncOrigin struct {
	mu      sync.Mutex
	body    []byte
	ctl     []byte
	ifRange []string
	heads   int
	next    []byte // when set, the file becomes next after the first range request
}

func (z *zsyncOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	z.mu.Lock()
	body := z.body
	if r.Method == http.MethodHead {
		z.heads++
	}
	if r.URL.Path == "/f" && r.Header.Get("Range") != "" {
		z.ifRange = append(z.ifRange, r.Header.Get("If-Range"))
		if z.next != nil {
			z.body, z.next = z.next, nil
		}
	}
	z.mu.Unlock()
	switch r.URL.Path {
	case "/f.zsync":
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(z.ctl))
	case "/f":
		w.Header().Set("ETag", fmt.Sprintf(`"%x"`, sha256.Sum256(body)))
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	default:
		http.NotFound(w, r)
	}
}

// TestGetZsyncIfRange: ranges go in batches; no HEAD is sent (the first
// range response brings the ETag); every request after the first carries
// If-Range with its ETag.
func TestGetZsyncIfRange(t *testing.T) {
	cur := zsyncData(4, 1<<20)
	old := bytes.Clone(cur)
	for k := 0; k < 40; k++ { // 40 blocks, 12 blocks apart: 40 ranges
		old[k*12*2048+5] ^= 1
	}
	buf := bytes.NewBuffer(controlFor(t, cur))
	z := &zsyncOrigin{body: cur, ctl: buf.Bytes()}
	ts := httptest.NewServer(z)
	defer ts.Close()
	work := t.TempDir()
	seed := filepath.Join(work, "old")
	os.WriteFile(seed, old, 0o644)
	out := filepath.Join(work, "new")
	code, stdout, errOut := runHdig(t, "get", "--json", "--no-cache", "--zsync", "--seed", seed, "-o", out, ts.URL+"/f.zsync")
	if v := zsyncVerdict(t, stdout); code != ExitOK || v.Transfer.Received != 81920 || v.Transfer.Pieces != 3 {
		t.Fatalf("hdig get --zsync = %d, %+v, %q; want 0 and 40 blocks in 3 requests", code, v.Transfer, errOut)
	}
	// The first range response's ETag goes with every later request.
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256(cur))
	if len(z.ifRange) != 3 || z.ifRange[0] != "" || z.ifRange[1] != etag || z.ifRange[2] != etag {
		t.Errorf("If-Range of the range requests = %q, want none, then %s twice", z.ifRange, etag)
	}
	if z.heads != 0 {
		t.Errorf("%d HEAD requests, want none: the range responses say what a HEAD would", z.heads)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, cur) {
		t.Error("rebuilt file differs")
	}
}

// TestGetZsyncTargetChanged: when the file changes between two range
// requests, If-Range brings the new file whole (200), which fails the old
// control file's checksums: exit 1, nothing written.
func TestGetZsyncTargetChanged(t *testing.T) {
	cur := zsyncData(5, 1<<20)
	old := bytes.Clone(cur)
	for k := 0; k < 40; k++ {
		old[k*12*2048+5] ^= 1
	}
	buf := bytes.NewBuffer(controlFor(t, cur))
	z := &zsyncOrigin{body: cur, ctl: buf.Bytes(), next: zsyncData(6, 1<<20)}
	ts := httptest.NewServer(z)
	defer ts.Close()
	work := t.TempDir()
	seed := filepath.Join(work, "old")
	os.WriteFile(seed, old, 0o644)
	out := filepath.Join(work, "new")
	code, _, errOut := runHdig(t, "get", "--zsync", "--seed", seed, "-o", out, ts.URL+"/f.zsync")
	if code != ExitIntegrity || !strings.Contains(errOut, "does not match its checksums") {
		t.Errorf("hdig get --zsync with the file changing = %d, %q; want 1 and a block mismatch", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the output was written")
	}
}

// TestGetZsyncFetchesOnlyMissing: blocks present between missing ones are
// not fetched again to join ranges (zsync 0.6.2 does not either): the bytes
// received are exactly the missing blocks'.
func TestGetZsyncFetchesOnlyMissing(t *testing.T) {
	cur := zsyncData(11, 1<<20)
	old := bytes.Clone(cur)
	for _, b := range []int{10, 13, 300} { // a pair of blocks apart (pairs match), then far
		old[b*2048+100] ^= 1
	}
	buf := bytes.NewBuffer(controlFor(t, cur))
	ts := httptest.NewServer(&zsyncOrigin{body: cur, ctl: buf.Bytes()})
	defer ts.Close()
	work := t.TempDir()
	seed := filepath.Join(work, "old")
	os.WriteFile(seed, old, 0o644)
	code, stdout, errOut := runHdig(t, "get", "--json", "--no-cache", "--zsync", "--seed", seed, "-o", filepath.Join(work, "new"), ts.URL+"/f.zsync")
	if v := zsyncVerdict(t, stdout); code != ExitOK || v.Transfer.Received != 3*2048 {
		t.Fatalf("hdig get --zsync = %d, %+v, %q; want 0 and the 3 missing blocks (6144 bytes) received", code, v.Transfer, errOut)
	}
}

// --strategy zsync is --zsync (as the README says): it takes --seed and
// --zsync-url as --zsync does, and rebuilds from the seed.
func TestGetStrategyZsyncTakesSeed(t *testing.T) {
	dir := t.TempDir()
	cur := zsyncData(3, 1<<20)
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), cur, 0o644); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	seed := filepath.Join(work, "old.bin")
	if err := os.WriteFile(seed, cur[:len(cur)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServe(t, dir)
	out := filepath.Join(work, "new.bin")
	code, stdout, errOut := runHdig(t, "get", "--json", "--strategy", "zsync", "--zsync-url", "data.bin.zsync", "--no-cache", "--seed", seed, "-o", out, url+"data.bin")
	if code != ExitOK {
		t.Fatalf("hdig get --strategy zsync --seed = %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, cur) {
		t.Fatal("rebuilt file differs from the served one")
	}
	if !strings.Contains(stdout, `"reused":`) || strings.Contains(stdout, `"reused":0`) {
		t.Errorf("nothing reused from the seed: %s", stdout)
	}
}

// --strategy names one way to the new version: another with --zsync,
// --seed or --zsync-url is a usage error before any request, not zsync
// silently.
func TestGetStrategyConflictsWithZsync(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("x"))
	}))
	defer srv.Close()
	seed := filepath.Join(t.TempDir(), "old")
	if err := os.WriteFile(seed, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"full", "delta", "dictionary"} {
		for _, z := range [][]string{{"--zsync"}, {"--seed", seed}, {"--zsync-url", "f.zsync"}} {
			args := append([]string{"get", "--no-cache", "--strategy", s, "-o", filepath.Join(t.TempDir(), "f")}, z...)
			code, _, errOut := runHdig(t, append(args, srv.URL+"/f")...)
			if code != ExitUsage || !strings.Contains(errOut, "--strategy "+s) {
				t.Errorf("--strategy %s %v: exit %d, %q; want exit 2 naming the conflict", s, z, code, errOut)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent; want none", n)
	}
}
