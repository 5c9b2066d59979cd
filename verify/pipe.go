package verify

import (
	"hash"
	"sync"
	"sync/atomic"
)

// pipe is a Hasher's bounded ring: the writer fills a slot (by copying
// into it, or by reading into one it was lent: Hasher.Buffer), then hands
// it to every algorithm's goroutine, and to the goroutine that writes it
// out when it came with a write (Hasher.SubmitWrite); the last one to
// finish with it puts it back on the free list. Each goroutine takes the
// slots in the order they were handed out, so every hash sees the bytes
// in order, and the writes are made in order.
type pipe struct {
	free  chan *slot
	work  []chan *slot
	cur   *slot // being filled by the writer; nil when none
	busy  sync.WaitGroup
	ended sync.Once

	// out is the goroutine that writes the slots submitted with a write
	// (Hasher.SubmitWrite), started by the first; outErr is its first
	// failure, after which it writes no more.
	out    chan *slot
	outErr atomic.Pointer[error]
}

type slot struct {
	b     *[]byte
	left  atomic.Int32         // goroutines that have yet to take b
	write func(p []byte) error // nil, or SubmitWrite's
}

// slotPool shares the slots' buffers between Hashers (one per range piece).
var slotPool = sync.Pool{New: func() any { b := make([]byte, 0, pipeSlot); return &b }}

// Process-wide counts of the pipelines' work, so tests can tell how the
// bytes travelled by counting, not timing: bytes copied into slots, and
// slots handed to the hashing goroutines.
var (
	pipeCopied   atomic.Int64
	pipeHandoffs atomic.Int64
	pipeWritten  atomic.Int64
)

// PipeCopied returns how many bytes every Hasher of the process has copied
// into its pipeline so far (bytes read into a lent Buffer are not copied).
func PipeCopied() int64 { return pipeCopied.Load() }

// PipeWritten returns how many bytes the pipelines' own goroutines have
// written out for their callers (Hasher.SubmitWrite) so far.
func PipeWritten() int64 { return pipeWritten.Load() }

// PipeHandoffs returns how many buffers every Hasher of the process has
// handed to its hashing goroutines so far.
func PipeHandoffs() int64 { return pipeHandoffs.Load() }

func startPipe(hashes []hash.Hash, keys []string) *pipe {
	p := &pipe{free: make(chan *slot, pipeSlots), work: make([]chan *slot, len(hashes))}
	for range pipeSlots {
		p.free <- &slot{b: slotPool.Get().(*[]byte)}
	}
	for i, x := range hashes {
		c := make(chan *slot, pipeSlots)
		p.work[i] = c
		go p.hash(c, x, keys[i])
	}
	return p
}

// hash is one algorithm's goroutine.
func (p *pipe) hash(c chan *slot, x hash.Hash, key string) {
	for s := range c {
		x.Write(*s.b)
		count(key, len(*s.b))
		p.done(s)
	}
}

// done is called by each goroutine that is through with s; the last one
// puts it back on the free list.
func (p *pipe) done(s *slot) {
	if s.left.Add(-1) == 0 {
		*s.b = (*s.b)[:0]
		s.write = nil
		p.free <- s
		p.busy.Done()
	}
}

// writeOut is the goroutine that writes slots out (SubmitWrite) while the
// others hash them: the caller goes on receiving, and the three run on as
// many cores. After a write fails it only gives the slots back.
func (p *pipe) writeOut(c chan *slot) {
	for s := range c {
		if p.outErr.Load() == nil {
			if err := s.write(*s.b); err != nil {
				p.outErr.Store(&err)
			} else {
				pipeWritten.Add(int64(len(*s.b)))
			}
		}
		p.done(s)
	}
}

// writeErr returns the first error of a write of writeOut, or nil.
func (p *pipe) writeErr() error {
	if e := p.outErr.Load(); e != nil {
		return *e
	}
	return nil
}

// write copies b into slots and hands each full one on.
func (p *pipe) write(b []byte) {
	pipeCopied.Add(int64(len(b)))
	for len(b) > 0 {
		if p.cur == nil {
			p.cur = <-p.free
		}
		s := p.cur
		n := min(len(b), cap(*s.b)-len(*s.b))
		*s.b = append(*s.b, b[:n]...)
		b = b[n:]
		if len(*s.b) == cap(*s.b) {
			p.send()
		}
	}
}

// lend takes a free slot for the caller to fill; safe to call while
// another goroutine writes (it only takes from the free list).
func (p *pipe) lend() *slot { return <-p.free }

// give hands on the first n bytes of a lent slot, after the slot being
// filled, or takes it back unused when n is 0.
func (p *pipe) give(s *slot, n int) {
	if n == 0 {
		p.back(s)
		return
	}
	if p.cur != nil && len(*p.cur.b) > 0 {
		p.send()
	}
	if p.cur != nil {
		p.back(p.cur)
	}
	*s.b = (*s.b)[:n]
	p.cur = s
	p.send()
}

// back puts a slot on the free list unhashed.
func (p *pipe) back(s *slot) {
	*s.b = (*s.b)[:0]
	s.write = nil
	p.free <- s
}

// send hands the slot being filled to every goroutine.
func (p *pipe) send() {
	s := p.cur
	p.cur = nil
	takers, out := len(p.work), s.write != nil // s is not ours once sent
	if out {
		takers++
		if p.out == nil {
			p.out = make(chan *slot, pipeSlots)
			go p.writeOut(p.out)
		}
	}
	s.left.Store(int32(takers))
	p.busy.Add(1)
	pipeHandoffs.Add(1)
	for _, c := range p.work {
		c <- s // never blocks: at most pipeSlots slots exist
	}
	if out {
		p.out <- s
	}
}

// flush hands on a partly filled slot and waits until every slot has been
// hashed; the goroutines' writes happen before it returns.
func (p *pipe) flush() {
	if p.cur != nil && len(*p.cur.b) > 0 {
		p.send()
	}
	p.busy.Wait()
}

// stop flushes, ends the goroutines and gives the buffers back. No slot
// may be lent out.
func (p *pipe) stop() {
	p.flush()
	p.end()
	if p.cur != nil {
		p.free <- p.cur
		p.cur = nil
	}
	for range pipeSlots {
		slotPool.Put((<-p.free).b)
	}
}

// end ends the goroutines, once; it is also the cleanup of a Hasher that
// was dropped without Close (nothing is being written any more).
func (p *pipe) end() {
	p.ended.Do(func() {
		for _, c := range p.work {
			close(c)
		}
		if p.out != nil {
			close(p.out)
		}
	})
}
