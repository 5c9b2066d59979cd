package zsync

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
	"sync/atomic"
)

// index finds the blocks whose stored rsum equals a key. A bit filter of
// about 16 bits per block rejects most keys no block has at once (maybe);
// blocks are grouped by a hash of their rsum into one or two slots per
// block (a counting sort), so a lookup reads the slot's bounds and the few
// keys in it, no search. Its size follows the block count only.
//
// Blocks that need no more looking for are skipped in constant amortised
// time (next, a union-find of "the next live position"), so a target made
// of one block repeated costs no more to match than any other.
type index struct {
	rsums  []uint32 // the blocks' rsums (the control file's table, shared)
	sorted []int32  // block numbers grouped by slot, by rsum within one
	pos    []int32  // position of each block in sorted
	// next[p] == p: position p is live; else a later position, all those
	// between dead. Retiring depends only on the blocks written, which
	// every scan shares: the scans of a Matcher share one record too.
	next   []atomic.Int32
	start  []int32  // slot h holds the positions [start[h], start[h+1])
	shift  uint     // a key's slot: the top bits of its hash
	filter []uint64 // bit hash>>fshift is set when a block may have the key
	fshift uint
}

func newIndex(rsums []uint32) *index { return newIndexBy(rsums, nil) }

// newIndexBy is newIndex with the blocks of one key ordered by order (then
// by block number), so that those a window could match are one range of
// positions (narrow): a control file giving every block one rsum cannot
// make each window look at every block.
func newIndexBy(rsums []uint32, order func(a, b int) int) *index {
	n := len(rsums)
	k := max(bits.Len(uint(n)), 1) // 2^k slots: one or two per block
	x := &index{rsums: rsums, sorted: makeSlice[int32](n, n), pos: makeSlice[int32](n, n), next: makeSlice[atomic.Int32](n+1, n+1), start: makeSlice[int32](1<<k+1, 1<<k+1)}
	x.shift = uint(32 - k)
	kf := min(k+4, 26) // filter bits: 16 to 32 per block, at most 8 MiB
	x.filter, x.fshift = makeSlice[uint64]((1<<kf+63)/64, (1<<kf+63)/64), uint(32-kf)
	// A counting sort in place: start[h] counts slot h's blocks, then
	// holds the end of slot h; blocks placed from the last, each at the
	// end of its slot moved down by one, leave start[h] at the slot's
	// beginning and the blocks of a slot in block order.
	for _, r := range rsums {
		x.start[x.slot(r)]++
	}
	for h := 1; h < len(x.start); h++ {
		x.start[h] += x.start[h-1]
	}
	for b := n - 1; b >= 0; b-- {
		r := rsums[b]
		f := keyHash(r) >> x.fshift
		x.filter[f/64] |= 1 << (f % 64)
		h := x.slot(r)
		x.start[h]--
		p := x.start[h]
		x.sorted[p], x.pos[b] = int32(b), p
	}
	for h := 0; h+1 < len(x.start); h++ {
		lo, hi := x.start[h], x.start[h+1]
		if hi-lo < 2 {
			continue
		}
		blocks := x.sorted[lo:hi]
		slices.SortFunc(blocks, func(a, b int32) int {
			if c := cmp.Compare(rsums[a], rsums[b]); c != 0 {
				return c
			}
			if order != nil {
				if c := order(int(a), int(b)); c != 0 {
					return c
				}
			}
			return cmp.Compare(a, b)
		})
		for p := lo; p < hi; p++ {
			x.pos[x.sorted[p]] = p
		}
	}
	for p := range x.next {
		x.next[p].Store(int32(p))
	}
	return x
}

// keyRange returns the positions of the blocks whose rsum is key, live or
// not: the keys of a slot are sorted.
func (x *index) keyRange(key uint32) (lo, hi int) {
	if !x.maybe(key) {
		return 0, 0
	}
	h := x.slot(key)
	lo, hi = int(x.start[h]), int(x.start[h+1])
	blocks := x.sorted[lo:hi]
	i := sort.Search(len(blocks), func(k int) bool { return x.rsums[blocks[k]] >= key })
	j := i + sort.Search(len(blocks)-i, func(k int) bool { return x.rsums[blocks[i+k]] > key })
	return lo + i, lo + j
}

// narrow returns the part of the positions [lo, hi) whose block compares
// equal by f, which must follow the order the index was made with.
func (x *index) narrow(lo, hi int, f func(block int) int) (int, int) {
	i := lo + sort.Search(hi-lo, func(k int) bool { return f(int(x.sorted[lo+k])) >= 0 })
	j := i + sort.Search(hi-i, func(k int) bool { return f(int(x.sorted[i+k])) > 0 })
	return i, j
}

func keyHash(key uint32) uint32 { return key * 0x9e3779b1 }

func (x *index) slot(key uint32) uint32 { return keyHash(key) >> x.shift }

// maybe reports whether a block may have rsum key: false is sure.
func (x *index) maybe(key uint32) bool {
	f := keyHash(key) >> x.fshift
	return x.filter[f/64]&(1<<(f%64)) != 0
}

// live returns the first live position from p on (len(sorted) if none).
func (x *index) live(p int) int {
	for {
		q := x.next[p].Load()
		if int(q) == p {
			return p
		}
		// Path halving; a jump stored at once by another scan may be
		// shorter, never past a live position.
		r := x.next[q].Load()
		x.next[p].Store(r)
		p = int(r)
	}
}

// retire makes block b's position dead: lookups skip it from now on. The
// caller knows nothing is left to find through b (Matcher.done).
func (x *index) retire(b int) {
	p := x.pos[b]
	x.next[p].CompareAndSwap(p, p+1)
}
