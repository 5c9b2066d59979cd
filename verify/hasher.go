package verify

import (
	"hash"
	"io"
	"sync"
)

// parallelMin is the write size from which a Hasher with several algorithms
// hashes them concurrently; smaller writes are cheaper done in turn.
const parallelMin = 16 << 10

// Hasher is an io.Writer that feeds every byte written to several digest
// algorithms at once. With more than one algorithm, large writes are hashed
// concurrently, one goroutine per extra algorithm, so two algorithms cost
// little more wall time than one. Write never retains p.
type Hasher struct {
	algs   []Algorithm
	hashes []hash.Hash
	n      int64

	once    sync.Once
	work    []chan []byte
	done    sync.WaitGroup
	stopped bool
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

// Written returns the number of bytes hashed so far.
func (h *Hasher) Written() int64 { return h.n }

// Write hashes p with every algorithm.
func (h *Hasher) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	if len(h.hashes) < 2 || len(p) < parallelMin || h.stopped {
		for _, x := range h.hashes {
			x.Write(p)
		}
		return len(p), nil
	}
	h.once.Do(h.start)
	h.done.Add(len(h.work))
	for _, c := range h.work {
		c <- p
	}
	h.hashes[0].Write(p)
	h.done.Wait()
	return len(p), nil
}

func (h *Hasher) start() {
	h.work = make([]chan []byte, len(h.hashes)-1)
	for i := range h.work {
		c := make(chan []byte)
		h.work[i] = c
		x := h.hashes[i+1]
		go func() {
			for p := range c {
				x.Write(p)
				h.done.Done()
			}
		}()
	}
}

// Sums returns the digests of everything written so far, in the order of
// the algorithms, and stops the worker goroutines. Writing after Sums
// continues sequentially.
func (h *Hasher) Sums() []Digest {
	h.Close()
	out := make([]Digest, len(h.hashes))
	for i, x := range h.hashes {
		out[i] = Digest{Algorithm: h.algs[i].Key, Value: x.Sum(nil)}
	}
	return out
}

// Close stops the worker goroutines. It is safe to call more than once.
func (h *Hasher) Close() error {
	if !h.stopped {
		h.stopped = true
		for _, c := range h.work {
			close(c)
		}
		h.work = nil
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
