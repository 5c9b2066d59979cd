package fetch

import (
	"context"
	"sync"
	"time"
)

// One stream while it is fast. By default (--parallel 0) a download the
// size splits into pieces still starts as curl does, one stream: the first
// response goes on from piece to piece while it brings at least
// slowStream bytes a second, measured every splitAfter. Only a slower
// stream opens the gate and lets the other workers take the pieces that
// are left, each a Range request, as an explicit --parallel N does from
// the start. On a fast link more connections would not bring the bytes
// sooner, but they cost: the pieces that land ahead of the prefix are read
// back for the hash, each piece's Content-Digest is computed on both
// sides, and concurrent writes to one file contend for it (bench/get.sh:
// a tenth more CPU for 1 GiB over loopback). The pieces are planned
// alike either way: the sidecar, -C and the progress see the same plan.
const (
	splitAfter = 500 * time.Millisecond
	slowStream = 64 << 20
)

// streamGate holds the workers other than the first back until the first
// stream proves slow (open) or the first worker is done (over). A nil
// gate holds nobody back.
type streamGate struct {
	open, over         chan struct{}
	done               chan struct{} // closed when the watch returned
	openOnce, overOnce sync.Once
}

// gate returns the gate of a default download's first stream, watched
// until it opens; nil when every worker starts at once: --parallel N, a
// resume, a plan of one piece.
func (d *download) gate(ctx context.Context, mode bodyMode) *streamGate {
	if d.o.Parallel != 0 || mode != modeHead || d.parallel < 2 || len(d.pieces) < 2 {
		return nil
	}
	g := &streamGate{open: make(chan struct{}), over: make(chan struct{}), done: make(chan struct{})}
	every, rate := d.o.splitAfter, d.o.slowStream
	if every <= 0 {
		every = splitAfter
	}
	if rate <= 0 {
		rate = slowStream
	}
	go func() {
		defer close(g.done)
		d.watch(ctx, g, every, float64(rate)*every.Seconds())
	}()
	return g
}

// watch opens g once an interval of every brings fewer than least bytes.
func (d *download) watch(ctx context.Context, g *streamGate, every time.Duration, least float64) {
	t := time.NewTicker(every)
	defer t.Stop()
	last := d.written()
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.over:
			return
		case <-t.C:
		}
		now := d.written()
		if float64(now-last) < least {
			g.openOnce.Do(func() { close(g.open) })
			return
		}
		last = now
	}
}

// written is the number of bytes of the plan's pieces on disk.
func (d *download) written() int64 {
	var n int64
	for _, p := range d.pieces {
		n += p.next.Load()
	}
	return n
}

// split says whether the gate is open (a nil gate always is).
func (g *streamGate) split() bool {
	if g == nil {
		return true
	}
	select {
	case <-g.open:
		return true
	default:
		return false
	}
}

// wait blocks a worker other than the first until the gate opens (true)
// or the first worker is done or the download failed (false).
func (g *streamGate) wait(ctx context.Context) bool {
	if g == nil {
		return true
	}
	select {
	case <-g.open:
		return true
	case <-g.over:
		return false
	case <-ctx.Done():
		return false
	}
}

// stop ends the watch and waits for it (transfer, before it returns): a
// restart plans the download again, and the watch reads the plan.
func (g *streamGate) stop() {
	if g != nil {
		g.alone()
		<-g.done
	}
}

// alone says the first worker is done: the others need not start.
func (g *streamGate) alone() {
	if g != nil {
		g.overOnce.Do(func() { close(g.over) })
	}
}

// firstStream fetches piece 0 from the first response r and, while the
// gate stays shut, the next pieces in order from the same response; once
// it opens (or the response failed and a piece was fetched by a Range
// request instead), the pieces left are taken from the queue by every
// worker alike.
func (d *download) firstStream(ctx context.Context, r *reply, mode bodyMode, buf []byte, queue <-chan *piece, g *streamGate) error {
	p := d.pieces[0]
	for {
		r.hold = !g.split()
		err := d.piece(ctx, p, r, mode, buf, nil)
		if err != nil || r.closed {
			return err
		}
		if g.split() {
			r.close()
			return nil
		}
		var next *piece
		select {
		case next = <-queue:
		default:
		}
		if next == nil || next.start != p.end {
			r.close()
			if next == nil {
				return nil
			}
			return d.piece(ctx, next, nil, modeRange, buf, nil)
		}
		p, mode = next, modeHead
		if p.end == d.total {
			mode = modeWhole // the last: read to the end of the response
		}
	}
}
