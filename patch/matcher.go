package patch

import "io"

// The matcher finds copies for one target window at a time (the scheme of
// xdelta3 and bsdiff-lite): the base is indexed once by a hash table of
// the 8 bytes at every step-th offset (every 4th up to level 6, every 2nd
// above, with a second table of 16 bytes at every 8th offset; a bucket
// holds as many offsets as the level's ways, for text whose 8-byte
// strings repeat). Each target position is hashed; candidates from the
// base indexes, from the target already seen, from the continuation of
// the previous copy, from the diagonals of the last long copies
// (diagonal.go) and from a dense index of the base around the most recent
// one (matchlocal.go) are verified and
// extended forward and backward, and the one saving the most bytes (its
// length less its address's size) wins. A short winner is compared with
// the candidates of the next few positions first (lazy matching).
//
// Memory: each base index has at most indexSize/2 entries of 4 bytes
// (default 2^23 each, 64 MiB in all; twice that at levels 8 and 9). Small
// bases are indexed at the level's step, so every match of step+7 bytes
// or more can be found; larger bases are sampled more sparsely (step =
// size / entries), so only matches of at least step+7 bytes are sure to be
// found (135 bytes for a 1 GiB base), while long matches always are. The
// target index has 2^18 entries (matchself.go); the base is read through
// the block cache (source.go).
const (
	minMatch     = 8       // shortest match found through an index worth a copy
	minGain      = 5       // ... if its length less its address size is at least this
	predictRange = 64      // bytes after a copy in which its continuation is tried
	minPredicted = 6       // shortest continuation match worth a copy
	minRun       = 8       // shortest run of one byte emitted as RUN
	minBatch     = 4       // positions whose index buckets are read ahead after a copy
	maxBatch     = 64      // ... and at most, in a long run without copies
	sameSlots    = 3 * 256 // the default code table's same cache
)

// op is one instruction the matcher chose.
type op struct {
	kind byte  // instAdd, instRun or instCopy
	n    int   // bytes of target it produces
	addr int64 // copy: offset in the base, or in the window if self
	self bool  // copy from the target window itself
}

type matcher struct {
	src      *source
	idx      []*index
	tune     tuning
	loc      local
	lastEnd  int64    // end of the last source copy; -1: none yet
	near     [4]int64 // starts of the last source copies (the near cache); -1: none
	nearSlot int
	same     [sameSlots]int64 // source copies' addresses+1 by address mod sameSlots (the same cache); 0: none
	tpos     int64            // target offset of the window's start
	diag     diagonals
	self     *selfIndex // nil: no copies from the target
	ops      []op
	cands    []int64
	segMin   int64
	segMax   int64
	// The index buckets of target positions before touched were read
	// ahead by touch; the next batch reads ahead this many positions.
	touched, batch int
	sink           uint64 // sum of the entries read ahead, so the reads are kept
}

// newMatcher indexes the base. self enables copies from the target window.
func newMatcher(base io.ReaderAt, size int64, cfg *config, self bool) (*matcher, error) {
	m := &matcher{src: newSource(base, size, encoderCache(size, cfg.cacheSize)), tune: levels[cfg.level], lastEnd: -1, near: [4]int64{-1, -1, -1, -1}}
	m.loc.center = -1
	if m.tune.self && self {
		m.self = newSelfIndex()
	}
	if size < 16 {
		return m, nil
	}
	entries := cfg.indexSize / 2 * m.tune.indexMul
	short := newIndex(size, 8, m.tune.ways, int64(m.tune.step), entries)
	m.idx = []*index{short}
	if m.tune.long && short.step < 8 {
		// The long index adds matches only while the short one is denser.
		m.idx = append(m.idx, newIndex(size, 16, 1, 8, entries))
	}
	if err := m.indexBase(base, size); err != nil {
		return nil, err
	}
	return m, nil
}

// encoderCache is the block cache the matcher reads a base of size bytes
// through: all of it if it fits in cacheSize (it is then read once), else
// a quarter of cacheSize. Copies then read the base again in order, and a
// cache larger than the neighbourhood of the recent copies only costs
// memory to fill (a third of the encode time of a 1 GiB base at 64 MiB).
func encoderCache(size int64, cacheSize int) int {
	if size <= int64(cacheSize) {
		return cacheSize
	}
	return cacheSize / 4
}

// window returns the instructions that produce t.
func (m *matcher) window(t []byte) []op {
	m.ops = m.ops[:0]
	m.segMin, m.segMax = -1, -1
	m.touched, m.batch = 0, minBatch
	// The encoder resets its caches every window.
	m.near, m.nearSlot = [4]int64{-1, -1, -1, -1}, 0
	clear(m.same[:])
	m.src.probes = len(t)/4 + 1024
	if m.self != nil {
		clear(m.self.table)
	}
	lit, predT, predS := 0, -1, int64(0)
	for q := 0; q < len(t); {
		c := m.best(t, q, lit, predT, predS, candidate{})
		if c.n == 0 {
			q++
			continue
		}
		for k := 1; c.n < m.tune.lazyLen && k <= m.tune.lazySteps && q+k < c.start+c.n; k++ {
			if c2 := m.best(t, q+k, lit, predT, predS, c); m.laterBetter(c2, c, q+k) {
				c = c2
			}
		}
		m.literal(t, lit, c.start)
		m.ops = append(m.ops, op{kind: instCopy, n: c.n, addr: c.addr, self: c.self})
		q, lit = c.start+c.n, c.start+c.n
		predT, predS = -1, 0
		m.batch = minBatch
		m.noteAddr(c)
		if !c.self {
			predT, predS = q, c.addr+int64(c.n)
			m.lastEnd = predS
			if c.n >= anchorLen {
				m.diag.note(c.addr - m.tpos - int64(c.start))
			}
			m.noteSegment(c.addr, c.addr+int64(c.n))
		}
	}
	m.literal(t, lit, len(t))
	m.tpos += int64(len(t))
	return m.ops
}

// candidate is a verified match: target [start, start+n) equals addr.
type candidate struct {
	start int
	n     int
	addr  int64
	self  bool
}

// covers reports whether base offset sp at target position q lies on the
// diagonal of source copy c, within it: a match from there is c again.
func (c candidate) covers(q int, sp int64) bool {
	return c.n > 0 && !c.self && sp-int64(q) == c.addr-int64(c.start) && c.start <= q && q < c.start+c.n
}

// gain estimates the bytes a copy saves over adding its bytes: its length
// less the size of its address. A source address copied before in the
// window and still in its slot of the same cache costs one byte (the
// matcher keys the slots by base offset where the encoder keys them by
// offset in the segment: the same addresses share a slot either way,
// though the encoder's slots also take copies from the target). Else it
// is written as the smallest of its distances from the start of a recent
// source copy (the near cache), from the start of the window's segment
// (VCD_SELF, taking the segment so far) and, as an estimate of where the
// next copy starts, from the end of the last one; a copy from the target
// as its distance back from q (VCD_HERE).
func (m *matcher) gain(c candidate, q int) int {
	if c.n == 0 {
		return 0
	}
	if c.self {
		return selfGain(c, q)
	}
	if m.same[c.addr%sameSlots] == c.addr+1 {
		return c.n - 1 // one byte: its slot in the same cache
	}
	d := c.addr - m.lastEnd
	d = max(d, -d)
	for _, a := range m.near {
		if a >= 0 && c.addr >= a {
			d = min(d, c.addr-a)
		}
	}
	if m.segMin >= 0 && c.addr >= m.segMin {
		d = min(d, c.addr-m.segMin)
	}
	return c.n - varintLen(uint64(d))
}

// noteAddr records the address of copy c in the near and same caches as
// the encoder will. A copy from the target takes a slot of the near cache
// with an address of no use to copies from the base (-1 here).
func (m *matcher) noteAddr(c candidate) {
	m.near[m.nearSlot] = -1
	if !c.self {
		m.near[m.nearSlot] = c.addr
		m.same[c.addr%sameSlots] = c.addr + 1
	}
	m.nearSlot = (m.nearSlot + 1) % len(m.near)
}

// better reports whether c2 found at q should replace c.
func (m *matcher) better(c2, c candidate, q int) bool {
	g2, g := m.gain(c2, q), m.gain(c, q)
	return g2 > g || g2 == g && c2.n > c.n
}

// laterBetter reports whether c2, found k bytes after c by the lazy
// look-ahead, should replace c: the bytes c covered before c2 starts
// become an ADD, which is counted against c2 on top of the coverage lost
// (c's end would likely have been followed by a copy anyway).
func (m *matcher) laterBetter(c2, c candidate, q int) bool {
	g2, g := m.gain(c2, q)-max(0, c2.start-c.start), m.gain(c, q)
	return g2 > g || g2 == g && c2.n > c.n
}

// best returns the match covering position q that saves the most (n == 0:
// none).
//
// A candidate on the diagonal of one already found (seen, the match the
// lazy look-ahead compares with, or c) is that match again: it is skipped
// without comparing its bytes with the base again.
func (m *matcher) best(t []byte, q, lit, predT int, predS int64, seen candidate) candidate {
	var c candidate
	if predT >= 0 && q-predT <= predictRange {
		if sp := predS + int64(q-predT); sp < m.src.size && !seen.covers(q, sp) {
			if f := m.src.matchForward(sp, t[q:]); f >= minPredicted && m.fits(sp, f) {
				c = candidate{start: q, n: f, addr: sp}
			}
		}
	}
	for _, d := range m.diag.d[:m.diag.n] {
		if c2 := m.onDiagonal(t, q, d, predT, predS, seen, c); m.better(c2, c, q) {
			c = c2
		}
	}
	if center := m.localCenter(q); m.tune.local && center >= 0 {
		if m.loc.center < 0 || max(center-m.loc.center, m.loc.center-center) > localMove {
			m.loc.build(m.src, center)
		}
		if sp := m.loc.find(t, q); sp >= 0 && !seen.covers(q, sp) && !c.covers(q, sp) {
			if c2 := m.loc.match(m.src, t, q, lit, sp); c2.n > 0 && m.fits(c2.addr, c2.n) && m.better(c2, c, q) {
				c = c2
			}
		}
	}
	if q >= m.touched {
		m.readAhead(t, q)
	}
	for _, x := range m.idx {
		m.cands = x.lookup(m.cands[:0], t[q:])
		for _, sp := range m.cands {
			if seen.covers(q, sp) || c.covers(q, sp) {
				continue
			}
			if f := m.src.verify(sp, t[q:]); f >= x.hlen {
				b := m.src.verifyBack(sp, t[lit:q])
				c2 := candidate{start: q - b, n: f + b, addr: sp - int64(b)}
				if f+b >= minMatch && m.gain(c2, q) >= minGain && m.better(c2, c, q) && m.fits(c2.addr, c2.n) {
					c = c2
				}
			}
		}
	}
	if m.self != nil {
		if c2 := m.self.match(t, q, lit); c2.n >= minMatch && m.gain(c2, q) >= minGain && m.better(c2, c, q) {
			c = c2
		}
	}
	return c
}

// readAhead touches the index buckets of the next batch of positions from
// q. A batch is short after a copy, which may be followed by another at
// once, and doubles while no copy is found.
func (m *matcher) readAhead(t []byte, q int) {
	m.touched = q + m.batch
	m.batch = min(2*m.batch, maxBatch)
	for _, x := range m.idx {
		m.sink += uint64(x.touch(t, q, m.touched))
	}
	if m.self != nil {
		m.sink += m.self.touch(t, q, m.touched)
	}
}

// fits reports whether a copy of base [addr, addr+n) keeps the window's
// source segment within maxSegmentSpan.
func (m *matcher) fits(addr int64, n int) bool {
	if m.segMin < 0 {
		return n <= maxSegmentSpan
	}
	return max(m.segMax, addr+int64(n))-min(m.segMin, addr) <= maxSegmentSpan
}

func (m *matcher) noteSegment(lo, hi int64) {
	if m.segMin < 0 || lo < m.segMin {
		m.segMin = lo
	}
	m.segMax = max(m.segMax, hi)
}

// literal emits t[from:to] as ADD and RUN instructions.
func (m *matcher) literal(t []byte, from, to int) {
	for i := from; i < to; {
		j := i + 1
		for j < to && t[j] == t[i] {
			j++
		}
		if j-i < minRun {
			for j < to && !(j+minRun <= to && allSame(t[j:j+minRun])) {
				j++
			}
			m.ops = append(m.ops, op{kind: instAdd, n: j - i})
		} else {
			m.ops = append(m.ops, op{kind: instRun, n: j - i})
		}
		i = j
	}
}

func allSame(b []byte) bool {
	for _, c := range b[1:] {
		if c != b[0] {
			return false
		}
	}
	return true
}
