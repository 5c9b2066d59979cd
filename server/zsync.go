package server

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hdig/hdig/zsync"
)

// zsync: every served file FILE has a control file FILE.zsync (made on the
// first request for each version of FILE, then cached) unless a real
// FILE.zsync exists, and FILE's responses point at it with
// Link: <FILE.zsync>; rel="describedby"; type="application/x-zsync".

const (
	zsyncSuffix = ".zsync"
	zsyncType   = "application/x-zsync"
	// zsyncCacheBytes bounds the control files kept in memory: their
	// bytes, each counted as at least zsyncEntryCost (the bound counts
	// bytes, not files, so small files' control files, the cheap ones to
	// hold, are not pushed out by a few dozen others).
	zsyncCacheBytes = 64 << 20
	zsyncEntryCost  = 1 << 10
	// zsyncMaxFile bounds the files that get a control file: one is about
	// 1/200 of its file (20 bytes a 4 KiB block) and is held in memory.
	zsyncMaxFile = 8 << 30
)

// errZsyncBusy: every build slot is taken; the client is asked to retry.
var errZsyncBusy = errors.New("control files are being made for other files; retry")

// zsyncWaitMax is the largest file whose control file a request waits to
// make: a few milliseconds of hashing, like the encoded variants built in
// the request (syncBuildMax).
const zsyncWaitMax = syncBuildMax

// zsyncCache holds made control files by file version, oldest out first,
// and bounds the work of making them: a build hashes its whole file, so
// builds of files larger than zsyncWaitMax run in at most max(1, cores/2)
// slots and a request that finds them all taken is answered 503 rather
// than queued; builds of smaller files wait for one of GOMAXPROCS slots of
// their own, so a large build never makes a small one fail. Concurrent
// requests for one version share one build.
type zsyncCache struct {
	mu      sync.Mutex
	files   map[fileKey]control
	order   []fileKey
	bytes   int
	flights map[fileKey]*zsyncFlight

	memBudget int        // zsyncCacheBytes (tests set less)
	disk      *diskStore // STATE/zsync; nil without a state directory

	slots chan struct{} // builds of files over waitMax; never waited for
	small chan struct{} // builds of files up to waitMax; waited for
	// reading bounds the read backs at once (readBack): each holds a
	// whole control file in memory, as a build does, up to ~40 MiB.
	reading     chan struct{}
	readWaiting atomic.Int64 // read backs waiting for reading (tests)
	waitMax     int64
	// storeMin: control files of files of at most this many bytes are
	// not kept on disk (zsync_disk.go): quick to make again, and each
	// would take a disk block and an inode whatever its size, which the
	// disk budget, counting bytes, does not see (tests set 0).
	storeMin int64
	maxFile  int64

	makes        atomic.Int64 // builds run (tests count them)
	reads        atomic.Int64 // control files read back (tests)
	readHook     func()       // tests: runs inside a read back
	smallWaiting atomic.Int64 // requests waiting for a small slot (tests)
	hook         func()       // tests: runs inside a build
	filled       int          // tests: slots taken by fillSlots
	filledSmall  int          // tests: slots taken by fillSmall
}

// zsyncFlight is a build in progress that later requests wait for.
type zsyncFlight struct {
	done    chan struct{}
	ctl     control
	err     error
	joiners int
	retry   bool // a read back that failed: the joiners go on to a build
}

func newZsyncCache(disk *diskStore) *zsyncCache {
	return &zsyncCache{files: map[fileKey]control{}, flights: map[fileKey]*zsyncFlight{},
		slots: make(chan struct{}, max(1, runtime.NumCPU()/2)), small: make(chan struct{}, runtime.GOMAXPROCS(0)),
		reading: make(chan struct{}, runtime.GOMAXPROCS(0)),
		waitMax: zsyncWaitMax, storeMin: zsyncWaitMax, maxFile: zsyncMaxFile, memBudget: zsyncCacheBytes, disk: disk}
}

// control is a made control file and its ETag.
type control struct {
	body []byte
	sum  []byte // sha-256 of body
	etag string
	sums *entry // digests of body, the sha-256 (the ETag's) among them; trusted
	keep bool   // may be cached (made from a settled file with a strong ID)
}

// get returns the control file of key, a file of size bytes: cached, made
// by a build already in flight, read back from the state directory under
// stored (storedKey; "" for none), or made now by build in a slot (for a
// file over waitMax, errZsyncBusy when none is free).
func (c *zsyncCache) get(ctx context.Context, k fileKey, size int64, stored string, build func() (control, error)) (control, error) {
	c.mu.Lock()
	if ctl, ok := c.files[k]; ok {
		c.mu.Unlock()
		return ctl, nil
	}
	if f := c.flights[k]; f != nil {
		return c.join(ctx, f, func() (control, error) { return c.get(ctx, k, size, "", build) })
	}
	if stored != "" {
		if ctl, ok := c.readBack(k, stored); ok {
			c.mu.Unlock()
			return ctl, nil
		}
	}
	slots, err := c.takeSlot(ctx, size)
	if err != nil {
		return control{}, err
	}
	if ctl, ok := c.files[k]; ok { // made while this request waited
		c.mu.Unlock()
		<-slots
		return ctl, nil
	}
	if f := c.flights[k]; f != nil {
		c.mu.Unlock()
		<-slots
		return c.get(ctx, k, size, stored, build)
	}
	f := &zsyncFlight{done: make(chan struct{}), err: errBuildPanicked}
	c.flights[k] = f
	c.mu.Unlock()
	c.run(k, f, slots, build)
	return f.ctl, f.err
}

// join waits for flight f, called with c.mu held, which it releases.
// After a read back that failed (f.retry) it calls again, for a build.
func (c *zsyncCache) join(ctx context.Context, f *zsyncFlight, again func() (control, error)) (control, error) {
	f.joiners++
	c.mu.Unlock()
	select {
	case <-f.done:
		if f.retry {
			return again()
		}
		return f.ctl, f.err
	case <-ctx.Done():
		return control{}, ctx.Err()
	}
}

// errBuildPanicked is the result of a build that panicked, for the
// requests that joined it (the panic goes on up to net/http).
var errBuildPanicked = errors.New("the control file could not be made")

// run runs the build of flight f in the slot it holds, then gives the
// slot back, keeps the result and ends the flight, even when the build
// panics: a slot or a flight left behind would block every later request.
func (c *zsyncCache) run(k fileKey, f *zsyncFlight, slots chan struct{}, build func() (control, error)) {
	defer func() {
		<-slots
		c.mu.Lock()
		delete(c.flights, k)
		if f.err == nil && f.ctl.keep {
			c.put(k, f.ctl)
		}
		c.mu.Unlock()
		close(f.done)
	}()
	c.makes.Add(1)
	if c.hook != nil {
		c.hook()
	}
	f.ctl, f.err = build()
}

// takeSlot takes a build slot for a file of size bytes, called with c.mu
// held. It returns the slot's channel (receive to give the slot back) with
// c.mu held, or an error with c.mu released: errZsyncBusy for a large file
// when every slot is taken, the context's error for a small file whose
// request ended while it waited (c.mu is released while it waits).
func (c *zsyncCache) takeSlot(ctx context.Context, size int64) (chan struct{}, error) {
	if size > c.waitMax {
		select {
		case c.slots <- struct{}{}:
			return c.slots, nil
		default:
			c.mu.Unlock()
			return nil, errZsyncBusy
		}
	}
	select {
	case c.small <- struct{}{}:
		return c.small, nil
	default:
	}
	c.mu.Unlock()
	c.smallWaiting.Add(1)
	defer c.smallWaiting.Add(-1)
	select {
	case c.small <- struct{}{}:
		c.mu.Lock()
		return c.small, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// put keeps ctl, dropping the oldest beyond the bounds; c.mu is held.
func (c *zsyncCache) put(k fileKey, ctl control) {
	n := ctl.cost()
	if _, ok := c.files[k]; ok || n > c.memBudget {
		return
	}
	for len(c.order) > 0 && c.bytes+n > c.memBudget {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= c.files[old].cost()
		delete(c.files, old)
	}
	c.files[k] = ctl
	c.order = append(c.order, k)
	c.bytes += n
}

// cost is what a control file counts against the memory bound.
func (ctl control) cost() int { return max(len(ctl.body), zsyncEntryCost) }

// serveZsync is serveGet's first step. For FILE.zsync, when no such file
// exists and FILE is a regular file, it answers with FILE's control file
// and reports true.
func (s *Server) serveZsync(w http.ResponseWriter, r *http.Request, name string) bool {
	if base, ok := strings.CutSuffix(name, zsyncSuffix); ok && base != "" && !strings.HasSuffix(base, "/") {
		if _, err := s.root.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return s.serveControl(w, r, base)
		}
	}
	return false
}

// zsyncLink adds the Link to name's zsync control file when name is a
// regular file that gets one (no larger than the control-file bound); lfi
// is its Lstat info, its links checked (linkInfo). memo, when not empty,
// is the field value made before for name (zsyncLinkValue with base "").
func (s *Server) zsyncLink(w http.ResponseWriter, r *http.Request, name string, lfi fs.FileInfo, memo string) {
	if lfi == nil || strings.HasSuffix(name, zsyncSuffix) {
		return
	}
	if lfi.Mode()&fs.ModeSymlink != 0 {
		fi, err := s.root.Stat(name)
		if err != nil {
			return
		}
		lfi = fi
	}
	if !lfi.Mode().IsRegular() || lfi.Size() > s.zsync.maxFile {
		return
	}
	if base := refBase(r); memo == "" || base != "" {
		memo = zsyncLinkValue(base, name)
	}
	h := w.Header()
	h["Link"] = append(h["Link"], memo)
}

// zsyncLinkValue is the Link field value pointing at name's control file,
// a reference from base (refBase).
func zsyncLinkValue(base, name string) string {
	return "<" + reference(base, path.Base(name)+zsyncSuffix) + `>; rel="describedby"; type="` + zsyncType + `"`
}

// serveControl answers with the control file of base, if base is a file.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request, base string) bool {
	f, fi, err := s.openFile(base)
	if err != nil {
		return false // serveGet answers 404 for FILE.zsync
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return false
	}
	if fi.Size() > s.zsync.maxFile {
		return false // serveGet answers 404: no control file for so large a file
	}
	// The URL line names the file as a reference from the control file's
	// URL as asked (refBase): relative for a path in normal form, else
	// absolute. The two control files differ in their bytes; each is
	// kept under its own key (enc: its variant of the file's one).
	ref := reference(refBase(r), path.Base(base))
	k := keyOf(base, fi)
	k.enc = "URL: " + ref
	o := zsync.MakeOptions{Filename: path.Base(base), MTime: fi.ModTime(), URL: ref}
	known := s.knownSum(k.name, k.id)
	cf, err := s.zsync.get(r.Context(), k, fi.Size(), s.zsync.storedKey(known, o), func() (control, error) {
		return s.makeControl(r.Context(), base, f, fi, o, known)
	})
	if err != nil {
		s.cfg.logger.Info("zsync control file not made", "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", "1")
		s.problem(w, r, problem{Status: http.StatusServiceUnavailable, Detail: err.Error()})
		return true
	}
	// The control file is a representation like any other, served by
	// the one path every response takes (serveRep): its digest fields,
	// preconditions, ranges and the fault options are those of any file.
	s.serveRep(w, r, &Representation{
		Path: r.URL.Path, File: base + zsyncSuffix, ContentType: zsyncType,
		Size: int64(len(cf.body)), ModTime: fi.ModTime(), ETag: cf.etag,
		Content: bytes.NewReader(cf.body), sums: cf.sums,
	})
	return true
}
