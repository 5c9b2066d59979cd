package server

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Read backs of stored control files of different files are bounded as
// builds are: each holds its control file whole in memory (up to ~40 MiB
// for an 8 GiB file), and requests for many large files' control files
// at once held as many (found by the review). Counted: read backs
// running at once, the bound set to 1.
func TestZsyncReadBacksBounded(t *testing.T) {
	dir, state := zsyncFiles(t, 3), t.TempDir()
	s, ts := startStoring(t, dir, state)
	cycleZsync(t, ts.URL, 3, 1) // stored; none kept in memory
	s.zsync.reading = make(chan struct{}, 1)
	release := make(chan struct{})
	var inside atomic.Int64
	s.zsync.readHook = func() { inside.Add(1); <-release }
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			getZsync(t, fmt.Sprintf("%s/f%d.bin.zsync", ts.URL, i))
		}()
	}
	for inside.Load()+s.zsync.readWaiting.Load() < 3 {
		runtime.Gosched()
	}
	if n := inside.Load(); n != 1 {
		t.Errorf("%d read backs at once, want 1 (the bound)", n)
	}
	close(release)
	wg.Wait()
	if n := s.zsync.reads.Load(); n != 3 {
		t.Errorf("%d read backs, want 3", n)
	}
	if n := s.zsync.makes.Load(); n != 3 {
		t.Errorf("%d builds, want 3 (the first round only)", n)
	}
}
