package patch

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
)

// The matcher finds copies for one target window at a time (the scheme of
// xdelta3 and bsdiff-lite): the base is indexed once by two hash tables, of
// 16 bytes at every 8th offset and of 8 bytes at every 2nd offset (eight
// offsets a bucket, for text whose 8-byte strings repeat); each
// target position is hashed, candidates from both base indexes, from the
// target already seen and from the continuation of the previous copy are
// verified and extended forward and backward, and the longest wins. A short
// winner is compared with the candidates of the next few positions first.
//
// Memory: each base index has at most indexSize/2 entries of 4 bytes
// (default 2^23 each, 64 MiB in all). Bases up to 16 MiB are indexed
// densely, so every match of 9 bytes or more can be found; larger bases are
// sampled more sparsely (step = size / entries; from 64 MiB on only the
// 8-byte index is kept), so only matches of at least step+7 bytes are sure
// to be found (135 bytes for a 1 GiB base), while long matches always are. The target index has 2^18 entries; the base is
// read through the block cache.
const (
	minMatch     = 9  // shortest match found through an index worth a copy
	predictRange = 64 // bytes after a copy in which its continuation is tried
	minPredicted = 6  // shortest continuation match worth a copy
	minRun       = 8  // shortest run of one byte emitted as RUN
	lazyLen      = 32 // a match shorter than this is compared with later ones
	lazySteps    = 8  // how many later positions
	selfBits     = 18
	selfLen      = 8
)

// op is one instruction the matcher chose.
type op struct {
	kind byte  // instAdd, instRun or instCopy
	n    int   // bytes of target it produces
	addr int64 // copy: offset in the base, or in the window if self
	self bool  // copy from the target window itself
}

// index maps the hash of hlen bytes at every step-th offset of the base to
// offset/step+1 in the low kbits of an entry; the bits above hold a tag
// of the hash (bits the bucket number does not use), so most candidates
// that only share a bucket are rejected without reading the base.
type index struct {
	table []uint32 // buckets of ways entries
	shift uint
	step  int64
	hlen  int
	ways  int
	kbits uint
}

func (x *index) hash(b []byte) uint64 {
	h := binary.LittleEndian.Uint64(b) * 0x9E3779B97F4A7C15
	if x.hlen == 16 {
		h = (h ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[8:]), 29)) * 0xC2B2AE3D27D4EB4F
	}
	return h
}

func newIndex(size int64, hlen, ways int, minStep int64, entries int) *index {
	x := &index{step: minStep, hlen: hlen, ways: ways}
	n := int64(1) << (63 - bits.LeadingZeros64(uint64(entries)))
	if samples := size / minStep; samples < n {
		n = max(1<<10, int64(1)<<(64-bits.LeadingZeros64(uint64(samples))))
	} else {
		x.step = (size + n - 1) / n
	}
	x.table = make([]uint32, n)
	x.shift = uint(64 - bits.TrailingZeros64(uint64(n/int64(ways))))
	x.kbits = uint(bits.Len64(uint64(n))) // every offset/step+1 is at most n
	return x
}

// tag is the part of hash h stored above the offset.
func (x *index) tag(h uint64) uint32 {
	return uint32(h) << x.kbits
}

// add indexes the sampled offsets of buf, which holds the base from off.
func (x *index) add(buf []byte, off int64) {
	i := (off + x.step - 1) / x.step * x.step
	for ; i-off+int64(x.hlen) <= int64(len(buf)); i += x.step {
		// Sample k goes to way k mod ways: no shifting, oldest replaced.
		k := i / x.step
		h := x.hash(buf[i-off:])
		x.table[int(h>>x.shift)*x.ways+int(k)%x.ways] = uint32(k+1) | x.tag(h)
	}
}

// lookup appends to dst the base offsets indexed for the bytes at b whose
// tag matches.
func (x *index) lookup(dst []int64, b []byte) []int64 {
	if len(b) < x.hlen {
		return dst
	}
	h := x.hash(b)
	tag, mask := x.tag(h), uint32(1)<<x.kbits-1
	for _, e := range x.table[int(h>>x.shift)*x.ways:][:x.ways] {
		if e&mask != 0 && e&^mask == tag {
			dst = append(dst, int64(e&mask-1)*x.step)
		}
	}
	return dst
}

type matcher struct {
	src    *source
	idx    []*index
	self   bool
	ttable []int32
	ops    []op
	cands  []int64
	segMin int64
	segMax int64
}

// newMatcher indexes the base. self enables copies from the target window.
func newMatcher(base io.ReaderAt, size int64, cfg *config, self bool) (*matcher, error) {
	m := &matcher{src: newSource(base, size, cfg.cacheSize), self: self}
	if self {
		m.ttable = make([]int32, 1<<selfBits)
	}
	if size < 16 {
		return m, nil
	}
	short := newIndex(size, 8, 8, 2, cfg.indexSize/2)
	m.idx = []*index{short}
	if short.step < 8 {
		// The long index adds matches only while the short one is denser.
		m.idx = append(m.idx, newIndex(size, 16, 1, 8, cfg.indexSize/2))
	}
	buf := make([]byte, 1<<20+16)
	for off := int64(0); off < size; off += 1 << 20 {
		n := int(min(int64(len(buf)), size-off))
		if k, err := base.ReadAt(buf[:n], off); k < n {
			return nil, fmt.Errorf("read base at %d: %w", off, err)
		}
		for _, x := range m.idx {
			x.add(buf[:n], off)
		}
	}
	return m, nil
}

// window returns the instructions that produce t.
func (m *matcher) window(t []byte) []op {
	m.ops = m.ops[:0]
	m.segMin, m.segMax = -1, -1
	m.src.probes = len(t)/4 + 1024
	if m.self {
		clear(m.ttable)
	}
	lit, predT, predS := 0, -1, int64(0)
	for q := 0; q < len(t); {
		c := m.best(t, q, lit, predT, predS)
		if c.n == 0 {
			q++
			continue
		}
		for k := 1; c.n < lazyLen && k <= lazySteps && q+k < c.start+c.n; k++ {
			if c2 := m.best(t, q+k, lit, predT, predS); c2.n > c.n {
				c = c2
			}
		}
		m.literal(t, lit, c.start)
		m.ops = append(m.ops, op{kind: instCopy, n: c.n, addr: c.addr, self: c.self})
		q, lit = c.start+c.n, c.start+c.n
		predT, predS = -1, 0
		if !c.self {
			predT, predS = q, c.addr+int64(c.n)
			m.noteSegment(c.addr, c.addr+int64(c.n))
		}
	}
	m.literal(t, lit, len(t))
	return m.ops
}

// candidate is a verified match: target [start, start+n) equals addr.
type candidate struct {
	start int
	n     int
	addr  int64
	self  bool
}

// best returns the longest match covering position q (n == 0: none).
func (m *matcher) best(t []byte, q, lit, predT int, predS int64) candidate {
	var c candidate
	if predT >= 0 && q-predT <= predictRange {
		if sp := predS + int64(q-predT); sp < m.src.size {
			if f := m.src.matchForward(sp, t[q:]); f >= minPredicted && m.fits(sp, f) {
				c = candidate{start: q, n: f, addr: sp}
			}
		}
	}
	for _, x := range m.idx {
		m.cands = x.lookup(m.cands[:0], t[q:])
		for _, sp := range m.cands {
			if f := m.src.verify(sp, t[q:]); f >= x.hlen {
				b := m.src.verifyBack(sp, t[lit:q])
				if f+b >= minMatch && f+b > c.n && m.fits(sp-int64(b), f+b) {
					c = candidate{start: q - b, n: f + b, addr: sp - int64(b)}
				}
			}
		}
	}
	if m.self && q+selfLen <= len(t) {
		slot := binary.LittleEndian.Uint64(t[q:]) * 0x9E3779B97F4A7C15 >> (64 - selfBits)
		// An entry at or beyond q was left by a look-ahead past the copy chosen.
		if tp := int(m.ttable[slot]) - 1; tp >= 0 && tp < q {
			if f := commonPrefix(t[tp:], t[q:]); f >= selfLen {
				b := commonSuffix(t[lit:q], t[:tp])
				if f+b >= minMatch && f+b > c.n {
					c = candidate{start: q - b, n: f + b, addr: int64(tp - b), self: true}
				}
			}
		}
		m.ttable[slot] = int32(q + 1)
	}
	return c
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
