package server

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Making a control file hashes the whole file: concurrent requests for one
// version share one build, and when every build slot is taken a request
// for another version of a file above the wait bound is told to retry
// (503) instead of queueing.
func TestZsyncBuildsBounded(t *testing.T) {
	s, ts := start(t, fixture(t))
	s.zsync.waitMax = 0 // every file counts as large here
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	s.zsync.hook = func() {
		entered <- struct{}{}
		<-release
	}
	var wg sync.WaitGroup
	codes := make([]int, 3)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := getZsync(t, ts.URL+"/data.bin.zsync")
			codes[i] = resp.StatusCode
		}()
	}
	<-entered
	s.zsync.waitJoiners(2) // the other two joined the build in flight
	// Every slot busy: another file's control file is not queued.
	s.zsync.fillSlots()
	resp, _ := getZsync(t, ts.URL+"/hello.json.zsync")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("control file with every build slot busy = %d (Retry-After %q), want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	s.zsync.drainSlots()
	close(release)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d = %d, want 200", i, c)
		}
	}
	if n := s.zsync.makes.Load(); n != 1 {
		t.Errorf("control file made %d times for 3 concurrent requests of one version, want 1", n)
	}
}

// The control file of a small file (milliseconds of hashing) is made in
// the request even while every slot for large files is taken: two
// clients asking for two small files' control files at once both get
// them, not a 503 (hdig check asks for several at once).
func TestZsyncSmallBuildsWait(t *testing.T) {
	s, ts := start(t, fixture(t))
	s.zsync.fillSlots()
	defer s.zsync.drainSlots()
	for _, name := range []string{"hello.json", "text.txt"} {
		resp, body := getZsync(t, ts.URL+"/"+name+".zsync")
		if resp.StatusCode != http.StatusOK || len(body) == 0 {
			t.Errorf("%s.zsync with every large-build slot busy = %d, want 200 with the control file", name, resp.StatusCode)
		}
	}
	// Small builds are bounded too: they wait for a slot of their own.
	s.zsync.fillSmall()
	done := make(chan int, 1)
	go func() {
		resp, err := http.Get(ts.URL + "/sub/a.txt.zsync")
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	code := s.zsync.waitSmallWaiter(done)
	s.zsync.drainSmall()
	if code == 0 {
		code = <-done
	}
	if code != http.StatusOK {
		t.Errorf("small control file after waiting for a slot = %d, want 200", code)
	}
}

// A build that panics (net/http recovers a handler's panic) gives its
// slot back and ends its flight with an error: left behind, they would
// block every later request for the version, and for small files once
// every slot had leaked, for all of them.
func TestZsyncBuildPanicFreesSlot(t *testing.T) {
	c := newZsyncCache(nil)
	var k fileKey
	for _, size := range []int64{10, c.waitMax + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("size %d: the build's panic did not reach the caller", size)
				}
			}()
			c.get(context.Background(), k, size, "", func() (control, error) { panic("boom") })
		}()
		if len(c.small) != 0 || len(c.slots) != 0 || len(c.flights) != 0 {
			t.Fatalf("size %d: after a panicking build %d small and %d large slots are held, %d flights open; want none",
				size, len(c.small), len(c.slots), len(c.flights))
		}
		if ctl, err := c.get(context.Background(), k, size, "", func() (control, error) { return control{body: []byte("x")}, nil }); err != nil || string(ctl.body) != "x" {
			t.Errorf("size %d: the next request after a panicking build: %q, %v", size, ctl.body, err)
		}
	}
}

// A file whose control file would pass the memory bound gets none (404).
func TestZsyncTooLargeFile(t *testing.T) {
	s, ts := start(t, fixture(t))
	s.zsync.maxFile = 100 // bytes: data.bin is larger
	resp, _ := getZsync(t, ts.URL+"/data.bin.zsync")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("control file of a file over the bound = %d, want 404", resp.StatusCode)
	}
	if n := s.zsync.makes.Load(); n != 0 {
		t.Errorf("%d control files made, want none", n)
	}
	// Nor does its response point at one.
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		req, _ := http.NewRequest(m, ts.URL+"/data.bin", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if l := resp.Header.Get("Link"); l != "" {
			t.Errorf("%s of a file over the control-file bound: Link %q, want none", m, l)
		}
	}
	// A file within the bound still gets its Link.
	resp, err := http.Get(ts.URL + "/hello.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if l := resp.Header.Get("Link"); l == "" {
		t.Error("file within the control-file bound: no Link")
	}
}

// waitJoiners waits (by counting, polling the build's state) until n
// requests have joined the build in flight.
func (c *zsyncCache) waitJoiners(n int) {
	for {
		c.mu.Lock()
		joined := 0
		for _, f := range c.flights {
			joined += f.joiners
		}
		c.mu.Unlock()
		if joined >= n {
			return
		}
		runtime.Gosched()
	}
}

// fillSlots takes every free build slot; drainSlots gives them back.
// fillSmall and drainSmall do the same with the slots for small builds.
func (c *zsyncCache) fillSlots()  { c.filled += fill(c.slots) }
func (c *zsyncCache) fillSmall()  { c.filledSmall += fill(c.small) }
func (c *zsyncCache) drainSlots() { drain(c.slots, &c.filled) }
func (c *zsyncCache) drainSmall() { drain(c.small, &c.filledSmall) }

// fill takes every free slot of slots and returns how many it took.
func fill(slots chan struct{}) int {
	for n := 0; ; n++ {
		select {
		case slots <- struct{}{}:
		default:
			return n
		}
	}
}

// drain gives back the *n slots taken by fill.
func drain(slots chan struct{}, n *int) {
	for ; *n > 0; *n-- {
		<-slots
	}
}

// waitSmallWaiter waits (polling the count) until a request waits for a
// small-build slot, or returns the status of the request on done if it was
// answered without waiting.
func (c *zsyncCache) waitSmallWaiter(done <-chan int) int {
	for c.smallWaiting.Load() == 0 {
		select {
		case code := <-done:
			return max(code, 1)
		default:
			runtime.Gosched()
		}
	}
	return 0
}

// A control file made from a file changed within the settle window may
// describe bytes the file no longer has: it is served but not kept.
func TestZsyncUnsettledNotKept(t *testing.T) {
	s, ts := start(t, fixture(t), WithSettle(time.Hour))
	for range 2 {
		if resp, _ := getZsync(t, ts.URL+"/data.bin.zsync"); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET data.bin.zsync = %d", resp.StatusCode)
		}
	}
	if n := s.zsync.makes.Load(); n != 2 {
		t.Errorf("control file of an unsettled file made %d times for 2 requests, want 2 (not kept)", n)
	}
}
