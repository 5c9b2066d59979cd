package verify

import (
	"hash"
	"sync"
	"sync/atomic"
)

// pipe is a Hasher's bounded ring: the writer fills a slot, then hands it
// to every algorithm's goroutine; the last one to finish with it puts it
// back on the free list. Each goroutine takes the slots in the order they
// were handed out, so every hash sees the bytes in order.
type pipe struct {
	free  chan *slot
	work  []chan *slot
	cur   *slot // being filled by the writer; nil when none
	busy  sync.WaitGroup
	ended sync.Once
}

type slot struct {
	b    *[]byte
	left atomic.Int32 // goroutines that have yet to hash b
}

// slotPool shares the slots' buffers between Hashers (one per range piece).
var slotPool = sync.Pool{New: func() any { b := make([]byte, 0, pipeSlot); return &b }}

func startPipe(hashes []hash.Hash, algs []Algorithm) *pipe {
	p := &pipe{free: make(chan *slot, pipeSlots), work: make([]chan *slot, len(hashes))}
	for range pipeSlots {
		p.free <- &slot{b: slotPool.Get().(*[]byte)}
	}
	for i, x := range hashes {
		c := make(chan *slot, pipeSlots)
		p.work[i] = c
		go p.hash(c, x, algs[i].Key)
	}
	return p
}

// hash is one algorithm's goroutine.
func (p *pipe) hash(c chan *slot, x hash.Hash, key string) {
	for s := range c {
		x.Write(*s.b)
		count(key, len(*s.b))
		if s.left.Add(-1) == 0 {
			*s.b = (*s.b)[:0]
			p.free <- s
			p.busy.Done()
		}
	}
}

// write copies b into slots and hands each full one on.
func (p *pipe) write(b []byte) {
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

// send hands the slot being filled to every goroutine.
func (p *pipe) send() {
	s := p.cur
	p.cur = nil
	s.left.Store(int32(len(p.work)))
	p.busy.Add(1)
	for _, c := range p.work {
		c <- s // never blocks: at most pipeSlots slots exist
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

// stop flushes, ends the goroutines and gives the buffers back.
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
	})
}
