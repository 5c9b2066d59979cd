package zsync

import (
	"bytes"
	"cmp"
)

// recompute computes the rsums of the window's blocks; with shift, the
// window moved one block on and the first block's rsum is the second's.
func (s *scanner) recompute(shift bool) {
	k := 0
	if shift {
		s.a[0], s.b[0] = s.a[1], s.b[1]
		k = 1
	}
	for ; k < s.m.c.SeqMatches; k++ {
		s.a[k], s.b[k] = rsum(s.buf[s.pos+k*s.bs : s.pos+(k+1)*s.bs])
	}
}

func (s *scanner) roll() {
	n := uint16(s.bs)
	for k := 0; k < s.m.c.SeqMatches; k++ {
		p := s.pos + k*s.bs
		s.a[k], s.b[k] = roll(s.a[k], s.b[k], s.buf[p], s.buf[p+s.bs], n)
	}
}

// try looks for blocks matching the window at pos and writes them; it
// returns how far to jump on (0: no match here).
func (s *scanner) try() (int, error) {
	m := s.m
	if s.work > hashBudget*(s.at+int64(s.pos)+int64(s.win)) {
		s.starved++
		s.hint = -1
		return 0, nil
	}
	s.tried++
	s.startWindow()
	key1 := join(s.a[0], s.b[0]) & m.mask
	if h := s.hint; h >= 0 && h < m.have.n && !m.have.has(h) && m.c.Rsums[h] == key1 && m.checksumMatches(h, s.first(true)) {
		s.hint = h + 1 // the block after the last match goes on
		return s.bs, s.take(h, s.block(0))
	}
	s.hint = -1
	if s.pastLimit() {
		return 0, nil // only a run's continuation is looked for here
	}
	// The blocks of rsum key1 are ordered by what a window must also have
	// (Control.blockOrder): the range that has all of it is found by
	// search, hashing the window no more than looking at a candidate
	// would, and every live block in it matches. Looking at each block of
	// the key in turn cost a look per block per window, which a control
	// file giving every block one rsum made the seed times the blocks.
	c := m.c
	last := m.have.n - 1
	lo, hi := s.idx.keyRange(key1)
	tail := c.SeqMatches == 2 && c.Rsums[last] == key1 // the last block, unpaired, sorts at the end
	if lo == hi {
		return 0, nil
	}
	// Nothing is hashed for a range whose blocks are all retired.
	if c.SeqMatches == 2 && s.idx.live(lo) < hi {
		key2 := uint64(join(s.a[1], s.b[1]) & m.mask)
		lo, hi = s.idx.narrow(lo, hi, func(b int) int { return cmp.Compare(c.pairKey(b), key2) })
	}
	if s.idx.live(lo) < hi {
		sum := s.first(c.SeqMatches == 2)[:c.ChecksumBytes]
		lo, hi = s.idx.narrow(lo, hi, func(b int) int { return bytes.Compare(c.checksum(b), sum) })
	}
	if s.idx.live(lo) < hi && c.SeqMatches == 2 {
		sum := s.second()[:c.ChecksumBytes]
		lo, hi = s.idx.narrow(lo, hi, func(b int) int { return bytes.Compare(c.checksum(b+1), sum) })
	}
	jump := 0
	for p := s.idx.live(lo); p < hi; p = s.idx.live(p + 1) {
		s.probed++
		i := int(s.idx.sorted[p])
		pair := c.SeqMatches == 2 && i+1 < m.have.n
		if err := s.take(i, s.block(0)); err != nil {
			return 0, err
		}
		if pair {
			if err := s.take(i+1, s.block(1)); err != nil {
				return 0, err
			}
		}
		if jump == 0 { // go on from the first match found here
			jump, s.hint = s.bs, i+1
			if pair {
				jump, s.hint = 2*s.bs, i+2
			}
		}
	}
	if tail && !m.have.has(last) {
		s.probed++
		if m.checksumMatches(last, s.first(false)) {
			if err := s.take(last, s.block(0)); err != nil {
				return 0, err
			}
			if jump == 0 {
				jump, s.hint = s.bs, last+1
			}
		}
	}
	return jump, nil
}

// block returns the window's block k (0 or 1).
func (s *scanner) block(k int) []byte { return s.buf[s.pos+k*s.bs : s.pos+(k+1)*s.bs] }

// startWindow forgets the MD4s of the last window's blocks; those hashed
// ahead stay.
func (s *scanner) startWindow() { s.ok1, s.ok2 = false, false }

// first returns the MD4 of the window's first block. With next, when a
// run of matching blocks is likely to go on, the block and the ones after
// it are hashed at once (md4Eight, else md4Two): the others cost little
// more, and the next windows or the pair check find them done.
func (s *scanner) first(next bool) []byte {
	if s.ok1 {
		return s.md1[:]
	}
	s.ok1 = true
	off := s.at + int64(s.pos)
	if s.hashed(off, &s.md1) {
		return s.md1[:]
	}
	switch {
	case next && md4Eight(s.buf[s.pos:s.n], s.bs, &s.ahead):
		s.aheadAt, s.aheadN = off, 8
		s.work += int64(8 * s.bs)
	case next && s.pos+2*s.bs <= s.n:
		md4Two(s.block(0), s.block(1), &s.ahead[0], &s.ahead[1])
		s.aheadAt, s.aheadN = off, 2
		s.work += int64(2 * s.bs)
	default:
		s.sum(s.block(0), &s.md1)
		s.tested++
		return s.md1[:]
	}
	s.tested += int64(s.aheadN)
	s.paired += int64(s.aheadN)
	s.md1 = s.ahead[0]
	return s.md1[:]
}

// second returns the MD4 of the window's second block.
func (s *scanner) second() []byte {
	if !s.ok2 && !s.hashed(s.at+int64(s.pos+s.bs), &s.md2) {
		s.sum(s.block(1), &s.md2)
		s.tested++
	}
	s.ok2 = true
	return s.md2[:]
}

// hashed copies into sum the MD4 hashed ahead of the block at offset off
// of the reader, if there is one.
func (s *scanner) hashed(off int64, sum *[md4Size]byte) bool {
	d := off - s.aheadAt
	if s.aheadN == 0 || d < 0 || d%int64(s.bs) != 0 || d/int64(s.bs) >= int64(s.aheadN) {
		return false
	}
	*sum = s.ahead[d/int64(s.bs)]
	return true
}

func (s *scanner) sum(w []byte, out *[md4Size]byte) {
	s.work += int64(len(w))
	s.h.Reset()
	s.h.Write(w)
	s.h.Sum(out[:0])
}

// take writes block i unless another scan did, and retires from this
// scan's lookups the blocks nothing is left to find through.
func (s *scanner) take(i int, w []byte) error {
	taken, err := s.m.take(i, w, &s.g)
	if err != nil {
		return err
	}
	if taken {
		s.fromSeed += int64(s.m.c.blockLen(i))
	}
	for _, j := range [2]int{i, i - 1} {
		if j >= 0 && s.m.done(j) {
			s.idx.retire(j)
		}
	}
	return nil
}
