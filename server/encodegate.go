package server

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"

	"github.com/hdig/hdig/internal/keyset"
)

// Encoded variants are built under a policy that keeps a burst of
// requests for large text files from taking the memory and the CPU, and
// from making clients wait: variants of files up to syncBuildMax (a
// dictionary coding: syncDictMax) are built in the request (milliseconds),
// a few at a time; larger ones are built in
// the background, at most largeBuildSlots at once, while the request that
// found the variant missing, and every request until it is ready, gets
// identity (always acceptable, RFC 9110 §12.5.3). A variant that was built
// and then evicted or pruned is built again only when it fits without
// evicting another, so a working set larger than the budget does not
// rebuild variants in a loop.
const syncBuildMax = 1 << 20

// syncDictMax is the largest file whose dictionary coding (dcb, dcz) is
// built in the request: Brotli at quality 11 and zstd's best level against
// a dictionary take tens of milliseconds for 256 KiB but most of a second
// for 1 MiB, far longer than sending it.
const syncDictMax = 256 << 10

// syncMax is the largest file whose variant in enc is built in the request.
func syncMax(enc string) int64 {
	if _, _, ok := parseDictEnc(enc); ok {
		return syncDictMax
	}
	return syncBuildMax
}

// errNotReady: the variant is not built yet; identity is served.
var errNotReady = errors.New("variant not built yet")

// errCannotEncode marks a variant its coding cannot make from the bytes
// named (a dictionary too large, an encode that does not decode back);
// errFailedBefore a variant remembered so (encodeGate.failed).
var (
	errCannotEncode = errors.New("cannot be encoded")
	errFailedBefore = fmt.Errorf("%w: failed before", errCannotEncode)
)

// builtMemory bounds the keys the gate remembers as built.
const builtMemory = 4096

// encodeGate holds the build slots and what was built.
type encodeGate struct {
	small  chan struct{} // synchronous builds of small files
	large  chan struct{} // background builds
	bg     sync.WaitGroup
	ctx    context.Context // cancelled by Close: background builds stop
	cancel context.CancelFunc

	// failed holds the variant keys whose coding refused the bytes
	// (errCannotEncode): not built again, however often asked.
	failed keyset.Set

	mu       sync.Mutex
	building map[string]bool
	built    map[string]int64 // variant key → encoded size, once built
	builds   int              // background builds done (tests count them)
	running  int              // background builds running
	peak     int              // most background builds running at once
}

func newEncodeGate() *encodeGate {
	procs := runtime.GOMAXPROCS(0)
	ctx, cancel := context.WithCancel(context.Background())
	return &encodeGate{small: make(chan struct{}, procs), large: make(chan struct{}, max(1, procs/2)),
		ctx: ctx, cancel: cancel, building: map[string]bool{}, built: map[string]int64{}}
}

// close stops the background builds and waits for them.
func (g *encodeGate) close() {
	g.cancel()
	g.bg.Wait()
}

// encodedVariant returns the enc variant of the file name whose identity
// (id, read through f) has sha-256 sum, or errNotReady.
func (s *Server) encodedVariant(r *http.Request, name string, id *Representation, sum []byte, enc string, f io.ReaderAt) (*variant, error) {
	g := s.gate
	key := hex.EncodeToString(sum) + "." + enc
	if g.failed.Has(key) {
		return nil, errFailedBefore
	}
	if id.Size <= syncMax(enc) {
		select {
		case g.small <- struct{}{}:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
		defer func() { <-g.small }()
		vr, err := s.variants.open(sum, enc, io.NewSectionReader(f, 0, id.Size))
		g.noteFailure(key, err)
		return vr, err
	}
	if g.isBuilding(key) {
		return nil, errNotReady
	}
	if vr, ok := s.variants.lookup(sum, enc); ok {
		return vr, nil
	}
	if g.start(key, s.variants) {
		g.bg.Add(1)
		go s.buildVariant(key, name, sum, enc, id.Size)
	}
	return nil, errNotReady
}

// noteFailure remembers the variant key as one that cannot be built
// when err says so (errCannotEncode: the coding refused the bytes named).
func (g *encodeGate) noteFailure(key string, err error) {
	if errors.Is(err, errCannotEncode) {
		g.failed.Add(key)
	}
}

func (g *encodeGate) isBuilding(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.building[key]
}

// start takes a background slot for key, unless none is free or the
// variant was built before and would now evict another to fit.
func (g *encodeGate) start(key string, vs *variantStore) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.building[key] {
		return false
	}
	if size, ok := g.built[key]; ok && !vs.fitsWithoutEviction(size) {
		return false
	}
	select {
	case g.large <- struct{}{}:
	default:
		return false
	}
	g.building[key] = true
	g.running++
	g.peak = max(g.peak, g.running)
	return true
}

// done records a finished background build and frees its slot.
func (g *encodeGate) done(key string, size int64) {
	g.mu.Lock()
	delete(g.building, key)
	g.running--
	g.builds++
	if size >= 0 {
		if len(g.built) >= builtMemory {
			for k := range g.built {
				delete(g.built, k)
				break
			}
		}
		g.built[key] = size
	}
	g.mu.Unlock()
	<-g.large
}

// buildVariant builds a variant in the background from its own handle on
// the file; the variant store checks the bytes still have sum.
func (s *Server) buildVariant(key, name string, sum []byte, enc string, size int64) {
	defer s.gate.bg.Done()
	built := int64(-1)
	defer func() { s.gate.done(key, built) }()
	f, err := s.root.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	src := ctxReader{s.gate.ctx, io.NewSectionReader(f, 0, size)}
	vr, err := s.variants.open(sum, enc, src)
	s.gate.noteFailure(key, err)
	if err != nil {
		s.cfg.logger.Debug("variant not built", "file", name, "encoding", enc, "err", err)
		return
	}
	vr.release()
	built = vr.size
}

// fitsWithoutEviction reports whether a variant of size bytes would fit
// in the store's budget without removing another.
func (vs *variantStore) fitsWithoutEviction(size int64) bool {
	if vs.disk != nil {
		return vs.disk.fits(size)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	return vs.used+size <= vs.budget
}
