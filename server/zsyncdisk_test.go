package server

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hdig/hdig/internal/peertest"
)

// zsyncFiles writes n small files f0.bin … to a new directory.
func zsyncFiles(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.bin", i)), bytes.Repeat([]byte{byte(i)}, 3000+i), 0o644))
	}
	return dir
}

// cycleZsync asks for the control files of the n files rounds times,
// round after round, and returns their bodies from the last round.
func cycleZsync(t *testing.T, url string, n, rounds int) [][]byte {
	t.Helper()
	bodies := make([][]byte, n)
	for range rounds {
		for i := range n {
			resp, body := getZsync(t, fmt.Sprintf("%s/f%d.bin.zsync", url, i))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET f%d.bin.zsync = %d, want 200", i, resp.StatusCode)
			}
			if bodies[i] != nil && !bytes.Equal(bodies[i], body) {
				t.Fatalf("f%d.bin.zsync changed between rounds", i)
			}
			bodies[i] = body
		}
	}
	return bodies
}

// More small files than the control files once kept (64), asked for in
// turn: each control file is made once, not once a request (the memory
// bound counts bytes, and a few KiB files' control files are small).
func TestZsyncCyclingSmallFiles(t *testing.T) {
	const n = 80
	s, ts := start(t, zsyncFiles(t, n), WithSettle(0))
	cycleZsync(t, ts.URL, n, 2)
	if got := s.zsync.makes.Load(); got != n {
		t.Errorf("%d control files made for %d files asked for twice each, want %d", got, n, n)
	}
}

// With a state directory, control files pushed out of memory are read
// back from it, not made again, and so after a restart; zsync 0.6.2
// syncs against one read back.
func TestZsyncStateDirCycling(t *testing.T) {
	const n = 70
	dir, state := zsyncFiles(t, n), t.TempDir()
	s, ts := startStoring(t, dir, state)
	first := cycleZsync(t, ts.URL, n, 3)
	if got := s.zsync.makes.Load(); got != n {
		t.Errorf("%d control files made for %d files asked for 3 times each, want %d", got, n, n)
	}
	s2, ts2 := start(t, dir, WithStateDir(state), WithSettle(0))
	again := cycleZsync(t, ts2.URL, n, 1)
	if got := s2.zsync.makes.Load(); got != 0 {
		t.Errorf("%d control files made after a restart, want 0 (read back)", got)
	}
	for i := range n {
		if !bytes.Equal(first[i], again[i]) {
			t.Errorf("f%d.bin.zsync read back differs from the one made", i)
		}
	}
	syncWithZsync(t, ts2.URL+"/f5.bin.zsync", filepath.Join(dir, "f5.bin"))
}

// syncWithZsync runs zsync 0.6.2 against url from an empty seed and
// checks that it rebuilt want.
func syncWithZsync(t *testing.T, url, want string) {
	t.Helper()
	zs := peertest.Need(t, "zsync")
	work := t.TempDir()
	cmd := exec.Command(zs, "-q", "-o", "out.bin", url)
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zsync: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(work, "out.bin"))
	must(t, err)
	w, err := os.ReadFile(want)
	must(t, err)
	if !bytes.Equal(got, w) {
		t.Fatalf("zsync rebuilt a file that differs from %s", want)
	}
}

// A stored control file whose bytes were changed behind the server's back
// is not served: it is made again.
func TestZsyncStoredTamperedRebuilt(t *testing.T) {
	dir, state := zsyncFiles(t, 1), t.TempDir()
	s, ts := startStoring(t, dir, state)
	made := cycleZsync(t, ts.URL, 1, 1)[0]
	stored, err := filepath.Glob(filepath.Join(state, "zsync", "*.*"))
	must(t, err)
	if len(stored) != 1 {
		t.Fatalf("%d control files stored, want 1", len(stored))
	}
	b, err := os.ReadFile(stored[0])
	must(t, err)
	b[len(b)-1] ^= 1 // a block checksum: zsync would fetch the wrong block
	must(t, os.WriteFile(stored[0], b, 0o644))
	if got := cycleZsync(t, ts.URL, 1, 1)[0]; !bytes.Equal(got, made) {
		t.Errorf("a tampered control file was served")
	}
	if got := s.zsync.makes.Load(); got != 2 {
		t.Errorf("%d control files made, want 2 (the tampered one made again)", got)
	}
}

// Concurrent requests for a control file pushed out of memory share one
// read back, as they share one build.
func TestZsyncReadBackShared(t *testing.T) {
	dir, state := zsyncFiles(t, 1), t.TempDir()
	s, ts := startStoring(t, dir, state)
	made := cycleZsync(t, ts.URL, 1, 1)[0]
	release := make(chan struct{})
	s.zsync.readHook = func() { <-release }
	var wg sync.WaitGroup
	bodies := make([][]byte, 3)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bodies[i] = cycleZsync(t, ts.URL, 1, 1)[0]
		}()
	}
	s.zsync.waitJoiners(2)
	close(release)
	wg.Wait()
	for i, b := range bodies {
		if !bytes.Equal(b, made) {
			t.Errorf("request %d: control file read back differs from the one made", i)
		}
	}
	if reads, makes := s.zsync.reads.Load(), s.zsync.makes.Load(); reads != 1 || makes != 1 {
		t.Errorf("%d read backs and %d builds for 3 concurrent requests, want 1 and 1", reads, makes)
	}
}

// A small file's control file is not kept on disk: it is quick to make
// again, and each would take a disk block and an inode whatever its few
// hundred bytes, which the disk budget, counting bytes, does not see, so
// asking for every small file's FILE.zsync could fill the disk many times
// over the budget (found by the reread).
func TestZsyncSmallNotStored(t *testing.T) {
	const n = 5
	dir, state := zsyncFiles(t, n), t.TempDir()
	s, ts := start(t, dir, WithStateDir(state), WithSettle(0))
	cycleZsync(t, ts.URL, n, 1)
	if got := s.zsync.makes.Load(); got != n {
		t.Fatalf("%d control files made, want %d", got, n)
	}
	names, _ := os.ReadDir(filepath.Join(state, "zsync"))
	if len(names) != 0 {
		t.Errorf("%d control files of files of about 3 KB kept on disk, want none", len(names))
	}
}

// A read back that panics (net/http recovers a handler's panic) ends its
// flight as a build that panics does: left open, every later request for
// the file would wait on it for ever (found by the reread).
func TestZsyncReadBackPanicEndsFlight(t *testing.T) {
	dir, state := zsyncFiles(t, 1), t.TempDir()
	s, ts := startStoring(t, dir, state)
	made := cycleZsync(t, ts.URL, 1, 1)[0]
	s.zsync.readHook = func() { panic("read back fails") }
	// A client of its own: net/http retries a GET whose reused connection
	// closed without an answer, and that retry would wait on the flight.
	client := &http.Client{Transport: &http.Transport{}}
	if resp, err := client.Get(ts.URL + "/f0.bin.zsync"); err == nil {
		resp.Body.Close()
	}
	s.zsync.mu.Lock()
	open := len(s.zsync.flights)
	s.zsync.mu.Unlock()
	if open != 0 {
		t.Fatalf("%d flights left open after a read back panicked, want 0", open)
	}
	s.zsync.readHook = nil
	if got := cycleZsync(t, ts.URL, 1, 1)[0]; !bytes.Equal(got, made) {
		t.Errorf("after the panic, the control file differs from the one made")
	}
}

// startStoring serves dir with the state directory state, keeping no
// control file in memory (every hit is a read back) and the control files
// of small files on disk too.
func startStoring(t *testing.T, dir, state string) (*Server, *httptest.Server) {
	t.Helper()
	s, ts := start(t, dir, WithStateDir(state), WithSettle(0))
	s.zsync.memBudget = 1
	s.zsync.storeMin = 0
	return s, ts
}
