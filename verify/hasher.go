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
// every slot is still being hashed. A caller that reads its bytes can
// read them straight into a slot (Buffer, Submit) and save the copy.
//
// The slots are large and few because every handoff to a goroutine that
// waits for work wakes it (a futex call, two context switches, an IPI on
// a VM): receiving 1 GiB into four 256 KiB slots cost 10-15% more CPU
// than into two of 512 KiB, which still let the reader fill one while the
// other is hashed (SHA-256 is the faster side of a transfer). Two 1 MiB
// slots saved another 4% but cost a MiB of the 16 MiB a held body may
// take (peak RSS, mostly the binary's pages).
const (
	pipeFrom  = 256 << 10
	pipeSlot  = 512 << 10
	pipeSlots = 2
)

// Hasher is an io.Writer that feeds every byte written to several digest
// algorithms at once. Inline algorithms (crc32c) are computed in the
// caller's goroutine. So are the others for small inputs; past pipeFrom
// bytes they are pipelined to one goroutine per algorithm (see pipeFrom),
// so two algorithms cost about the wall time of the slower one, and
// hashing overlaps with the caller's work. Write never retains p. Sums,
// Written, MarshalBinary and UnmarshalBinary first wait for everything
// written to be hashed.
type Hasher struct {
	algs   []Algorithm
	hashes []hash.Hash
	n      int64
	inline []hash.Hash // Algorithm.Inline: never pipelined
	piped  []hash.Hash // the others
	keys   []string    // of piped

	inlineKeys []string

	p *pipe // nil until pipeFrom bytes; nil again after Close

	writeErr error // the first failed SubmitWrite write, once p is gone
}

// NewHasher returns a Hasher for the given algorithms.
func NewHasher(algs []Algorithm) *Hasher {
	h := &Hasher{algs: algs, hashes: make([]hash.Hash, len(algs))}
	for i, a := range algs {
		h.hashes[i] = a.New()
		if a.Inline {
			h.inline, h.inlineKeys = append(h.inline, h.hashes[i]), append(h.inlineKeys, a.Key)
		} else {
			h.piped, h.keys = append(h.piped, h.hashes[i]), append(h.keys, a.Key)
		}
	}
	return h
}

// Algorithms returns the algorithms being computed.
func (h *Hasher) Algorithms() []Algorithm { return h.algs }

// Written returns the number of bytes written so far.
func (h *Hasher) Written() int64 { return h.n }

// Write hashes p with every algorithm (or queues it to be hashed).
func (h *Hasher) Write(p []byte) (int, error) {
	h.hashInline(p)
	if len(h.piped) == 0 {
		h.n += int64(len(p))
		return len(p), nil
	}
	if h.p == nil && h.n+int64(len(p)) < pipeFrom {
		h.n += int64(len(p))
		for i, x := range h.piped {
			x.Write(p)
			count(h.keys[i], len(p))
		}
		return len(p), nil
	}
	h.start()
	h.n += int64(len(p))
	h.p.write(p)
	return len(p), nil
}

// hashInline hashes p with the inline algorithms.
func (h *Hasher) hashInline(p []byte) {
	for i, x := range h.inline {
		x.Write(p)
		count(h.inlineKeys[i], len(p))
	}
}

// start starts the pipeline if it is not running.
func (h *Hasher) start() {
	if h.p != nil {
		return
	}
	h.p = startPipe(h.piped, h.keys)
	// The goroutines hold the pipe, not h: an unreferenced Hasher that
	// was never closed still lets them end.
	runtime.AddCleanup(h, func(p *pipe) { p.end() }, h.p)
}

// A Buffer is lent by a Hasher (Buffer) to read bytes into: Submit hashes
// them without copying them, Return gives it back unhashed.
type Buffer struct {
	s   *slot   // one of the pipeline's slots, or nil
	own *[]byte // else a buffer of slotPool
}

// Bytes is the buffer to fill: pipeSlot bytes.
func (b *Buffer) Bytes() []byte {
	if b.s != nil {
		return (*b.s.b)[:cap(*b.s.b)]
	}
	return (*b.own)[:cap(*b.own)]
}

// Buffer lends one of the pipeline's buffers, starting the pipeline; it
// blocks while every buffer is being hashed. Once the pipeline runs,
// Buffer and Return may be called while another goroutine writes; Submit
// may not. Every Buffer must be submitted or returned before Close.
func (h *Hasher) Buffer() *Buffer {
	if len(h.piped) == 0 {
		return &Buffer{own: slotPool.Get().(*[]byte)}
	}
	h.start()
	return &Buffer{s: h.p.lend()}
}

// Submit hashes the first n bytes of b after everything written before,
// and takes b back: the caller must not touch b's bytes any more.
func (h *Hasher) Submit(b *Buffer, n int) {
	p := b.Bytes()[:n]
	h.hashInline(p)
	h.n += int64(n)
	if b.s == nil {
		slotPool.Put(b.own)
		return
	}
	h.p.give(b.s, n)
}

// SubmitWrite is Submit that also has the n bytes written with write
// before b is taken back, by a goroutine of the pipeline's own while the
// others hash them: the caller goes on receiving meanwhile, so receiving,
// writing and hashing run on as many cores. Writes happen in the order
// submitted. The first that fails is kept (WriteErr) and those after it
// are skipped. Without a pipeline (no algorithm but inline ones) the bytes
// are written here. It returns the first write error so far.
func (h *Hasher) SubmitWrite(b *Buffer, n int, write func(p []byte) error) error {
	if err := h.WriteErr(); n == 0 || err != nil {
		h.Return(b)
		return err
	}
	if b.s == nil {
		err := write((*b.own)[:n])
		if err == nil {
			h.Submit(b, n)
		} else {
			h.Return(b)
			h.failWrite(err)
		}
		return h.WriteErr()
	}
	b.s.write = write
	h.Submit(b, n)
	return h.WriteErr()
}

// failWrite keeps err as the write error unless there is one.
func (h *Hasher) failWrite(err error) {
	if h.writeErr == nil {
		h.writeErr = err
	}
}

// WriteErr returns the first error of a write SubmitWrite was given, as
// far as the writes have got: Flush waits for them all.
func (h *Hasher) WriteErr() error {
	if h.writeErr == nil && h.p != nil {
		return h.p.writeErr()
	}
	return h.writeErr
}

// Flush waits until everything written or submitted has been hashed and
// written out, and returns the first write error (WriteErr).
func (h *Hasher) Flush() error {
	h.wait()
	return h.WriteErr()
}

// Return takes b back without hashing its bytes.
func (h *Hasher) Return(b *Buffer) {
	if b.s == nil {
		slotPool.Put(b.own)
		return
	}
	h.p.back(b.s)
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
		if err := h.p.writeErr(); err != nil {
			h.failWrite(err)
		}
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
