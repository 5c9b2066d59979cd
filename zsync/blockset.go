package zsync

import (
	"math/bits"
	"sync/atomic"
)

// blockSet records which blocks of the target are written: one bit a
// block in two summarised bit sets, the blocks missing and the blocks
// present, so that Missing finds where the next run of missing blocks
// starts and where it ends in a few word reads each, however many blocks
// lie between (an origin answering one block a round made Missing read
// every block's record every round: blocks² over the run). Bits only ever
// go from missing to present; scans and fetch writers mark them at once.
type blockSet struct {
	n       int
	count   atomic.Int64 // blocks present
	missing bitTree      // set: the block is not written yet
	present bitTree      // set: the block is written (and the bits past n)
}

func newBlockSet(n int) *blockSet {
	s := &blockSet{n: n}
	s.missing.init(n, true)
	s.present.init(n, false)
	return s
}

// has reports whether block i is written.
func (s *blockSet) has(i int) bool { return !s.missing.get(i) }

// take marks block i written; false when it already was.
func (s *blockSet) take(i int) bool {
	if !s.missing.clear(i) {
		return false
	}
	s.present.set(i)
	s.count.Add(1)
	return true
}

// runs returns the runs of missing blocks as [start, end) block numbers,
// and the words it read.
func (s *blockSet) runs(yield func(start, end int)) (looked int64) {
	for i := s.missing.next(0, &looked); i >= 0 && i < s.n; {
		j := s.present.next(i, &looked)
		if j < 0 || j > s.n {
			j = s.n
		}
		yield(i, j)
		if j == s.n {
			break
		}
		i = s.missing.next(j, &looked)
	}
	return looked
}

// bitTree is a bit set with summaries: bit j of level k+1 is set when
// word j of level k is not zero; the top level is one word.
type bitTree struct {
	levels [][]atomic.Uint64
}

// init makes a tree of n bits: those below n set when on, else those
// from n to the end of the last word.
func (t *bitTree) init(n int, on bool) {
	words := (n + 63) / 64
	leaf := makeSlice[atomic.Uint64](words, words)
	for w := range leaf {
		var x uint64
		for b := 0; b < 64; b++ {
			if (w*64+b < n) == on {
				x |= 1 << b
			}
		}
		leaf[w].Store(x)
	}
	t.levels = [][]atomic.Uint64{leaf}
	for len(t.levels[len(t.levels)-1]) > 1 {
		low := t.levels[len(t.levels)-1]
		up := makeSlice[atomic.Uint64]((len(low)+63)/64, (len(low)+63)/64)
		for j := range low {
			if low[j].Load() != 0 {
				up[j/64].Store(up[j/64].Load() | 1<<(j%64))
			}
		}
		t.levels = append(t.levels, up)
	}
}

func (t *bitTree) get(i int) bool {
	return t.levels[0][i/64].Load()&(1<<(i%64)) != 0
}

// set sets bit i, and the summary bits above it that were not set.
func (t *bitTree) set(i int) {
	for k := range t.levels {
		bit := uint64(1) << (i % 64)
		if old := t.levels[k][i/64].Or(bit); old != 0 {
			return // the summaries above already say the word is not zero
		}
		i /= 64
	}
}

// clear clears bit i, and the summary bits of the words it left zero;
// false when it was not set.
func (t *bitTree) clear(i int) bool {
	for k := range t.levels {
		bit := uint64(1) << (i % 64)
		old := t.levels[k][i/64].And(^bit)
		if old&bit == 0 {
			return k > 0 // the bit itself was clear: nothing changed
		}
		if old != bit {
			return true // the word is not zero: the summaries hold
		}
		i /= 64
	}
	return true
}

// next returns the first set bit from i on, or -1; looked counts the
// words read.
func (t *bitTree) next(i int, looked *int64) int {
	for {
		k, p := 0, i
		// Up: the first level whose word holding p has a set bit from p on.
		for {
			lvl := t.levels[k]
			w := p / 64
			if w >= len(lvl) {
				return -1
			}
			*looked++
			if x := lvl[w].Load() &^ (1<<(p%64) - 1); x != 0 {
				p = w*64 + bits.TrailingZeros64(x)
				break
			}
			if k+1 == len(t.levels) {
				return -1
			}
			k, p = k+1, w+1
		}
		// Down: the first set bit of each word the summaries point to.
		stale := false
		for k > 0 && !stale {
			k--
			*looked++
			if x := t.levels[k][p].Load(); x != 0 {
				p = p*64 + bits.TrailingZeros64(x)
			} else {
				stale = true // a summary behind a concurrent clear
			}
		}
		if !stale {
			return p
		}
		// Search on past the word (of level k) found zero.
		i = (p + 1) << (6 * (k + 1))
	}
}
