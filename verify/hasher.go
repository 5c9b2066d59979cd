package verify

import (
	"hash"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// Pipeline sizes: once pipeFrom bytes have been written, a Hasher copies
// what it is given into one of pipeSlots buffers of pipeSlot bytes and
// hands it to one goroutine per algorithm, so hashing runs on other cores
// while the caller receives the next bytes. The ring bounds the memory
// (pipeSlots × pipeSlot) and how far hashing may lag: Write blocks while
// every slot is still being hashed.
const (
	pipeFrom  = 256 << 10
	pipeSlot  = 128 << 10
	pipeSlots = 4
)

// Hasher is an io.Writer that feeds every byte written to several digest
// algorithms at once. Small inputs are hashed in the caller's goroutine;
// past pipeFrom bytes the bytes are pipelined to one goroutine per
// algorithm (see pipeFrom), so two algorithms cost about the wall time of
// the slower one, and hashing overlaps with the caller's work. Write never
// retains p. Sums, Written, MarshalBinary and UnmarshalBinary first wait
// for everything written to be hashed.
type Hasher struct {
	algs   []Algorithm
	hashes []hash.Hash
	n      int64

	p *pipe // nil until pipeFrom bytes; nil again after Close
}

// NewHasher returns a Hasher for the given algorithms.
func NewHasher(algs []Algorithm) *Hasher {
	h := &Hasher{algs: algs, hashes: make([]hash.Hash, len(algs))}
	for i, a := range algs {
		h.hashes[i] = a.New()
	}
	return h
}

// Algorithms returns the algorithms being computed.
func (h *Hasher) Algorithms() []Algorithm { return h.algs }

// Written returns the number of bytes written so far.
func (h *Hasher) Written() int64 { return h.n }

// Write hashes p with every algorithm (or queues it to be hashed).
func (h *Hasher) Write(p []byte) (int, error) {
	if len(h.hashes) == 0 {
		h.n += int64(len(p))
		return len(p), nil
	}
	if h.p == nil && h.n+int64(len(p)) < pipeFrom {
		h.n += int64(len(p))
		for i, x := range h.hashes {
			x.Write(p)
			count(h.algs[i].Key, len(p))
		}
		return len(p), nil
	}
	if h.p == nil {
		h.p = startPipe(h.hashes, h.algs)
		// The goroutines hold the pipe, not h: an unreferenced Hasher
		// that was never closed still lets them end.
		runtime.AddCleanup(h, func(p *pipe) { p.end() }, h.p)
	}
	h.n += int64(len(p))
	h.p.write(p)
	return len(p), nil
}

// wait returns once everything written has been hashed.
func (h *Hasher) wait() {
	if h.p != nil {
		h.p.flush()
	}
}

// Sums returns the digests of everything written so far, in the order of
// the algorithms. Writing after Sums continues.
func (h *Hasher) Sums() []Digest {
	h.wait()
	out := make([]Digest, len(h.hashes))
	for i, x := range h.hashes {
		out[i] = Digest{Algorithm: h.algs[i].Key, Value: x.Sum(nil)}
	}
	return out
}

// Close waits for the bytes written to be hashed and stops the worker
// goroutines. It is safe to call more than once; writing after Close
// starts them again.
func (h *Hasher) Close() error {
	if h.p != nil {
		h.p.stop()
		h.p = nil
	}
	return nil
}

// Sum reads r to the end and returns its digests with every algorithm.
func Sum(r io.Reader, algs []Algorithm) ([]Digest, int64, error) {
	h := NewHasher(algs)
	defer h.Close()
	buf := make([]byte, 256<<10)
	n, err := io.CopyBuffer(h, r, buf)
	if err != nil {
		return nil, n, err
	}
	return h.Sums(), n, nil
}

// hashed counts the bytes hashed per algorithm, process-wide, so tests can
// tell what was computed by counting work.
var hashed sync.Map // key -> *atomic.Int64

func count(key string, n int) {
	c, ok := hashed.Load(key)
	if !ok {
		c, _ = hashed.LoadOrStore(key, new(atomic.Int64))
	}
	c.(*atomic.Int64).Add(int64(n))
}

// Hashed returns how many bytes have been hashed with the algorithm key by
// every Hasher of the process so far.
func Hashed(key string) int64 {
	if c, ok := hashed.Load(key); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}
