package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
)

// strategyRun fetches successive versions of one served file into one
// cache and checks the strategy of each.
type strategyRun struct {
	t              *testing.T
	file, url      string
	cacheDir, work string
	log            *requestLog
}

func newStrategyRun(t *testing.T, opts ...server.Option) *strategyRun {
	site := t.TempDir()
	url, log := zsyncServe(t, site, nil, opts...)
	return &strategyRun{t: t, file: filepath.Join(site, "data.bin"), url: url + "data.bin", cacheDir: t.TempDir(), work: t.TempDir(), log: log}
}

func (r *strategyRun) get(name string, v byte, want string, args ...string) {
	t := r.t
	t.Helper()
	cur := zsyncData(21, 1<<20)
	for k := 0; k < 8; k++ {
		cur[k*100_000+int(v)] = v
	}
	os.WriteFile(r.file, cur, 0o644)
	r.log.mu.Lock()
	r.log.seen = nil
	r.log.mu.Unlock()
	out := filepath.Join(r.work, name)
	args = append([]string{"get", "--json", "--cache-dir", r.cacheDir, "-o", out}, append(args, r.url)...)
	code, stdout, errOut := runHdig(t, args...)
	got := zsyncVerdict(t, stdout)
	if code != ExitOK || got.Transfer.Strategy != want {
		t.Fatalf("%s: hdig %v = %d, strategy %q; want 0, %s\n%s", name, args, code, got.Transfer.Strategy, want, errOut)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, cur) {
		t.Fatalf("%s: the file differs", name)
	}
}

func (r *strategyRun) counts(name string, want map[string]int) {
	r.t.Helper()
	for kind, n := range want {
		if got := r.log.count(kind); got != n {
			r.t.Errorf("%s: %d %s requests, want %d (all: %q)", name, got, kind, n, r.log.seen)
		}
	}
}

func (r *strategyRun) origins() string {
	b, _ := os.ReadFile(filepath.Join(r.cacheDir, cache.OriginsFile))
	return string(b)
}

// TestGetStrategyDeltaOrigin: an origin that sends 226 gets A-IM and is
// remembered for it; --strategy full and zsync override.
func TestGetStrategyDeltaOrigin(t *testing.T) {
	d, err := delta.New(t.TempDir(), 4, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newStrategyRun(t, server.WithDelta(d))
	r.get("v1", 1, "full") // no cached base: one plain GET
	r.counts("no base", map[string]int{"GET": 1, "HEAD": 0, "DELTA": 0, "RANGE": 0})
	r.get("v2", 2, "delta") // a base, an unknown origin: A-IM, a 226
	r.counts("base, unknown origin", map[string]int{"DELTA": 1, "HEAD": 0, "GET": 0, "RANGE": 0})
	if !strings.Contains(r.origins(), `"rfc3229":true`) {
		t.Errorf("%s = %s, want the origin remembered as sending 226", cache.OriginsFile, r.origins())
	}
	r.get("v3", 3, "full", "--strategy", "full")
	r.counts("--strategy full", map[string]int{"GET": 1, "DELTA": 0, "HEAD": 0})
	r.get("v4", 4, "zsync", "--strategy", "zsync")
	r.counts("--strategy zsync", map[string]int{"HEAD": 1, "GET": 1, "DELTA": 0})
	if r.log.count("RANGE") == 0 {
		t.Errorf("--strategy zsync sent no range request: %q", r.log.seen)
	}
	r.get("v5", 5, "delta") // remembered: A-IM again
	r.counts("base, RFC 3229 origin", map[string]int{"DELTA": 1, "HEAD": 0, "GET": 0, "RANGE": 0})
}

// TestGetStrategyZsyncOrigin: an origin that answers A-IM with a 200 is
// remembered; the next update follows its Link to the control file, with
// the cached version as the seed; --strategy delta overrides.
func TestGetStrategyZsyncOrigin(t *testing.T) {
	r := newStrategyRun(t) // no WithDelta: A-IM gets a 200
	r.get("v1", 1, "full")
	r.get("v2", 2, "full") // offered A-IM, got 200
	r.counts("base, unknown origin", map[string]int{"DELTA": 1, "HEAD": 0, "RANGE": 0})
	if !strings.Contains(r.origins(), `"no_rfc3229":true`) {
		t.Errorf("%s = %s, want the origin remembered as not sending 226", cache.OriginsFile, r.origins())
	}
	r.get("v3", 3, "zsync")
	r.counts("base, origin without 226", map[string]int{"HEAD": 1, "GET": 1, "DELTA": 0})
	if n := r.log.count("RANGE"); n == 0 || n > 2 {
		t.Errorf("zsync sent %d range requests, want 1 or 2: %q", n, r.log.seen)
	}
	r.get("v4", 4, "full", "--strategy", "delta")
	r.counts("--strategy delta", map[string]int{"DELTA": 1, "HEAD": 0})
	// A flag the zsync path would not honour keeps auto on the plain GET.
	r.get("v5", 5, "full", "-R")
	r.counts("auto with -R", map[string]int{"HEAD": 0, "RANGE": 0})

	if code, _, errOut := runHdig(t, "get", "--strategy", "fast", "-o", filepath.Join(r.work, "x"), r.url); code != ExitUsage || !strings.Contains(errOut, "want auto, delta, dictionary, zsync or full") {
		t.Errorf("--strategy fast = %d, %q; want 2", code, errOut)
	}
}
