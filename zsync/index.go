package zsync

import (
	"math/bits"
	"sort"
)

// index finds the blocks whose stored rsum equals a key. A bit filter
// rejects most keys at once; the rest are found by binary search in the
// block numbers sorted by rsum. Its size follows the block count only.
//
// Blocks that need no more looking for are skipped in constant amortised
// time (next, a union-find of "the next live position"), so a target made
// of one block repeated costs no more to match than any other.
type index struct {
	rsums  []uint32
	sorted []int32 // block numbers ordered by rsum, then number
	pos    []int32 // position of each block in sorted
	next   []int32 // next[p] == p: position p is live; else a later position
	filter []uint64
	shift  uint
}

func newIndex(rsums []uint32) *index {
	x := &index{rsums: rsums, sorted: make([]int32, len(rsums)), pos: make([]int32, len(rsums)), next: make([]int32, len(rsums)+1)}
	for i := range x.sorted {
		x.sorted[i] = int32(i)
	}
	sort.Slice(x.sorted, func(i, j int) bool {
		a, b := x.sorted[i], x.sorted[j]
		return rsums[a] < rsums[b] || rsums[a] == rsums[b] && a < b
	})
	for p, b := range x.sorted {
		x.pos[b] = int32(p)
	}
	for p := range x.next {
		x.next[p] = int32(p)
	}
	// About 16 filter bits per block, from 2^6 to 2^26 bits.
	k := bits.Len(uint(len(rsums))) + 4
	k = min(max(k, 6), 26)
	x.filter = make([]uint64, 1<<(k-6))
	x.shift = uint(32 - k)
	for _, r := range rsums {
		h := x.slot(r)
		x.filter[h>>6] |= 1 << (h & 63)
	}
	return x
}

func (x *index) slot(key uint32) uint32 { return (key * 0x9e3779b1) >> x.shift }

// lookup returns the positions [lo, hi) in sorted of the blocks whose
// rsum is key; walk them with live.
func (x *index) lookup(key uint32) (lo, hi int) {
	h := x.slot(key)
	if x.filter[h>>6]&(1<<(h&63)) == 0 {
		return 0, 0
	}
	lo = sort.Search(len(x.sorted), func(i int) bool { return x.rsums[x.sorted[i]] >= key })
	hi = sort.Search(len(x.sorted), func(i int) bool { return x.rsums[x.sorted[i]] > key })
	return x.live(lo), hi
}

// live returns the first live position from p on (len(sorted) if none).
func (x *index) live(p int) int {
	for int(x.next[p]) != p {
		x.next[p] = x.next[x.next[p]] // path halving
		p = int(x.next[p])
	}
	return p
}

// clone returns an index sharing x's tables with its own record of what
// is retired: each seed scan retires as it goes.
func (x *index) clone() *index {
	y := *x
	y.next = append([]int32(nil), x.next...)
	return &y
}

// retire makes block b's position dead: lookups skip it from now on.
func (x *index) retire(b int) {
	p := x.pos[b]
	x.next[p] = p + 1
}
