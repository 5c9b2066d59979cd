package fetch

import (
	"io"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hdig/hdig/verify"
)

// Parallel download limits and the default choice (contract: --parallel
// "default: chosen from the size").
const (
	// MaxParallel bounds --parallel, as aria2 bounds -x.
	MaxParallel = 16
	// parallelFrom is the smallest size split by default: below it one
	// stream is as fast and costs one request.
	parallelFrom = 16 << 20
	// parallelStep is the size per default connection.
	parallelStep = 8 << 20
	// defaultParallel is the most connections chosen by default.
	defaultParallel = 4

	minPieceSize = 1 << 20
	maxPieceSize = 32 << 20
	pieceAlign   = 64 << 10
)

// AutoParallel is the default number of concurrent pieces for a
// representation of total bytes (-1 unknown): 1 below 16 MiB, else
// min(4, total/8 MiB).
func AutoParallel(total int64) int {
	if total < parallelFrom {
		return 1
	}
	return int(min(defaultParallel, total/parallelStep))
}

// pieceSize is the size of the pieces of a plan for n connections: about
// four pieces per connection, so the pieces are taken in order, the
// contiguous prefix grows steadily (and is hashed while it is still in the
// page cache), and a resume loses little; between 1 and 32 MiB.
func pieceSize(total int64, n int) int64 {
	if n <= 1 || total <= 0 {
		return max(total, 1)
	}
	s := (total + int64(4*n) - 1) / int64(4*n)
	s = min(max(s, minPieceSize), maxPieceSize)
	return (s + pieceAlign - 1) / pieceAlign * pieceAlign
}

// span is the byte range [start, end).
type span struct{ start, end int64 }

// spans is a sorted list of disjoint, non-adjacent spans.
type spans []span

// add merges [a, b) into the list.
func (s *spans) add(a, b int64) {
	if a >= b {
		return
	}
	l := *s
	i := sort.Search(len(l), func(i int) bool { return l[i].end >= a })
	j := i
	for j < len(l) && l[j].start <= b {
		a, b = min(a, l[j].start), max(b, l[j].end)
		j++
	}
	l = append(l[:i], append([]span{{a, b}}, l[j:]...)...)
	*s = l
}

// cut removes [a, b) from the list.
func (s *spans) cut(a, b int64) {
	var out spans
	for _, x := range *s {
		if x.start < a {
			out = append(out, span{x.start, min(x.end, a)})
		}
		if x.end > b {
			out = append(out, span{max(x.start, b), x.end})
		}
	}
	*s = out
}

// reach is the end of the span that contains off, or off.
func (s spans) reach(off int64) int64 {
	for _, x := range s {
		if x.start <= off && off < x.end {
			return x.end
		}
	}
	return off
}

// trim drops everything below off.
func (s *spans) trim(off int64) {
	l := *s
	for len(l) > 0 && l[0].end <= off {
		l = l[1:]
	}
	if len(l) > 0 && l[0].start < off {
		l[0].start = off
	}
	*s = l
}

// missing is the complement of s in [0, total).
func (s spans) missing(total int64) spans {
	var out spans
	at := int64(0)
	for _, x := range s {
		if x.start > at {
			out = append(out, span{at, min(x.start, total)})
		}
		at = max(at, x.end)
	}
	if at < total {
		out = append(out, span{at, total})
	}
	return out
}

// size is the number of bytes the spans cover.
func (s spans) size() int64 {
	var n int64
	for _, x := range s {
		n += x.end - x.start
	}
	return n
}

// piece is one range of a plan. next counts the bytes of it on disk, from
// start; only its worker writes it, others read it (sidecar, progress).
type piece struct {
	id         int
	start, end int64
	next       atomic.Int64
}

// at is the offset of the piece's first missing byte.
func (p *piece) at() int64 { return p.start + p.next.Load() }

// maxPlanPieces bounds a plan whatever length an origin (Content-Length)
// or a sidecar claims: the pieces grow instead.
const maxPlanPieces = 1 << 16

// planPieces cuts the missing spans into pieces of at most size bytes (more
// when that would make over maxPlanPieces), in order. The ids number the
// pieces from 0.
func planPieces(missing spans, size int64) []*piece {
	size = max(size, missing.size()/maxPlanPieces+1, 1)
	var out []*piece
	for _, m := range missing {
		for a := m.start; a < m.end; {
			end := m.end
			if end-a > size {
				end = a + size // cannot overflow: below m.end
			}
			out = append(out, &piece{id: len(out), start: a, end: end})
			a = end
		}
	}
	return out
}

// prefixHash hashes the contiguous prefix of the part file as pieces land,
// so Repr-Digest is known when the last byte is. Bytes written at the
// watermark are hashed from the writer's buffer; bytes that landed beyond
// it are read back when the watermark reaches them, soon enough to be in
// the page cache. One goroutine hashes at a time (busy); others only note
// what landed and return. With no algorithm (none) it only keeps the
// watermark: nothing is read back, no buffer lent.
type prefixHash struct {
	f    io.ReaderAt
	h    *verify.Hasher
	none bool

	mu     sync.Mutex
	idle   *sync.Cond // signalled when busy turns false
	wm     int64      // bytes hashed
	landed spans      // bytes on disk beyond wm
	busy   bool
	held   int // snapshots waiting: no new hashing starts
	err    error
	// wm0 and state0 are where hashing started, for rewind.
	wm0    int64
	state0 []byte
	err0   error
}

// newPrefixHash starts at watermark wm with landed already on disk. It
// keeps its own copy of landed: the caller's spans (download.before) are
// read by other goroutines while this one's grow.
func newPrefixHash(f io.ReaderAt, h *verify.Hasher, wm int64, landed spans) *prefixHash {
	p := &prefixHash{f: f, h: h, none: len(h.Algorithms()) == 0, wm: wm, landed: append(spans(nil), landed...), wm0: wm}
	p.state0, p.err0 = h.MarshalBinary()
	p.landed.trim(wm)
	p.idle = sync.NewCond(&p.mu)
	return p
}

// wrote is called after b was written at off.
func (p *prefixHash) wrote(off int64, b []byte) {
	p.mu.Lock()
	if p.busy || p.held > 0 || p.err != nil || off != p.wm {
		p.landedAt(off, int64(len(b)))
		return
	}
	p.busy = true
	p.mu.Unlock()
	p.h.Write(b)
	p.mu.Lock()
	p.wm += int64(len(b))
	p.landed.trim(p.wm)
	p.catchUp()
}

// landedAt runs with mu held: it notes n bytes on disk at off, to be read
// back, and catches up if nobody else is at it; it unlocks.
func (p *prefixHash) landedAt(off, n int64) {
	p.landed.add(off, off+n)
	if p.busy || p.held > 0 || p.landed.reach(p.wm) == p.wm {
		p.mu.Unlock()
		return
	}
	p.busy = true
	p.catchUp()
}

// lend returns one of the hasher's buffers to read the bytes at off into
// when off is the watermark, so they are hashed from it (wroteLent)
// without a copy; else nil: the caller reads into its own buffer, and the
// bytes are hashed when the watermark reaches them.
func (p *prefixHash) lend(off int64) *verify.Buffer {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.none || p.busy || p.held > 0 || p.err != nil || off != p.wm {
		return nil
	}
	// Nobody writes to the hasher while busy is clear and mu held.
	return p.h.Buffer()
}

// landLent lands n bytes read at off into the lent buffer b, which it
// takes back. At the watermark they are handed to the hasher, which writes
// them with write and hashes them on goroutines of its own while the
// caller reads on (verify.Hasher.SubmitWrite); elsewhere they are written
// here, to be read back when the watermark reaches them. It returns the
// first write error so far: a failed write of the hasher's also stops the
// prefix hash (err), so no snapshot claims bytes that are not on disk.
func (p *prefixHash) landLent(off int64, b *verify.Buffer, n int, write func([]byte) error) error {
	if n == 0 {
		p.h.Return(b)
		return nil
	}
	p.mu.Lock()
	if p.busy || p.held > 0 || p.err != nil || off != p.wm {
		p.mu.Unlock()
		err := write(b.Bytes()[:n])
		p.h.Return(b)
		if err != nil {
			return err
		}
		p.mu.Lock()
		p.landedAt(off, int64(n))
		return nil
	}
	p.busy = true
	p.mu.Unlock()
	err := p.h.SubmitWrite(b, n, write)
	p.mu.Lock()
	if err != nil && p.err == nil {
		p.err = err // the hash may or may not have these bytes: it is done
	} else if err == nil {
		p.wm += int64(n)
		p.landed.trim(p.wm)
	}
	p.catchUp()
	return err
}

// catchUp runs with mu held and busy set: it hashes what landed at the
// watermark by reading it back into the hasher's buffers, then clears busy
// and unlocks.
func (p *prefixHash) catchUp() {
	for p.err == nil && p.held == 0 {
		end := p.landed.reach(p.wm)
		if end == p.wm {
			break
		}
		if p.none {
			p.wm = end // nothing to hash them with
			p.landed.trim(p.wm)
			continue
		}
		off := p.wm
		p.mu.Unlock()
		b := p.h.Buffer()
		n := int(min(end-off, int64(len(b.Bytes()))))
		_, err := p.f.ReadAt(b.Bytes()[:n], off)
		if err == nil {
			p.h.Submit(b, n)
		} else {
			p.h.Return(b)
		}
		p.mu.Lock()
		if err != nil {
			p.err = err
			break
		}
		p.wm += int64(n)
		p.landed.trim(p.wm)
	}
	p.busy = false
	p.idle.Broadcast()
	p.mu.Unlock()
}

// finish hashes whatever landed and is still unhashed, waits for the
// hasher, and returns the watermark. No writes may come any more.
func (p *prefixHash) finish() (int64, error) {
	p.mu.Lock()
	for {
		for p.busy || p.held > 0 {
			p.idle.Wait()
		}
		if p.err != nil || p.landed.reach(p.wm) == p.wm {
			break
		}
		p.busy = true
		p.catchUp()
		p.mu.Lock()
	}
	defer p.mu.Unlock()
	if err := p.h.Flush(); err != nil && p.err == nil {
		p.err = err // a write of the hasher's (landLent)
	}
	return p.wm, p.err
}

// snapshot returns the watermark and the saved hash state at it, pausing
// hashing for the moment it takes, and calls at (unless nil) within that
// moment. Then the hasher's writes (landLent) are done: every byte below
// the watermark, and every byte a worker has counted as landed since, is
// on disk. A failed write of the hasher's is returned as the error.
func (p *prefixHash) snapshot(at func()) (int64, []byte, error) {
	p.mu.Lock()
	p.held++
	for p.busy {
		p.idle.Wait()
	}
	st, err := p.h.MarshalBinary()
	if werr := p.h.WriteErr(); werr != nil {
		err = werr
	}
	if at != nil {
		at()
	}
	wm := p.wm
	if p.held--; p.held > 0 {
		p.mu.Unlock()
		return wm, st, err
	}
	p.idle.Broadcast()
	if p.err == nil && p.landed.reach(p.wm) > p.wm {
		p.busy = true
		p.catchUp()
	} else {
		p.mu.Unlock()
	}
	return wm, st, err
}

// rewind forgets the bytes [a, b), which are to be written again. If the
// watermark has passed a, the hash took some of them in: it goes back to
// where it started and re-reads from disk what landed since (outside
// [a, b)) as the watermark reaches it again.
func (p *prefixHash) rewind(a, b int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held++
	for p.busy {
		p.idle.Wait()
	}
	p.held--
	defer p.idle.Broadcast()
	if p.wm <= a {
		p.landed.cut(a, b)
		return nil
	}
	if p.err0 != nil {
		return p.err0
	}
	if err := p.h.UnmarshalBinary(p.state0); err != nil {
		return err
	}
	p.landed.add(p.wm0, p.wm)
	p.landed.cut(a, b)
	p.wm = p.wm0
	return nil
}
