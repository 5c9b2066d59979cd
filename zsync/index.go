package zsync

import (
	"math/bits"
	"sort"
)

// index finds the blocks whose stored rsum equals a key. A bit filter
// rejects most keys at once; the rest are found by binary search in the
// block numbers sorted by rsum. Its size follows the block count only.
type index struct {
	rsums  []uint32
	sorted []int32 // block numbers ordered by rsum, then number
	filter []uint64
	shift  uint
}

func newIndex(rsums []uint32) *index {
	x := &index{rsums: rsums, sorted: make([]int32, len(rsums))}
	for i := range x.sorted {
		x.sorted[i] = int32(i)
	}
	sort.Slice(x.sorted, func(i, j int) bool {
		a, b := x.sorted[i], x.sorted[j]
		return rsums[a] < rsums[b] || rsums[a] == rsums[b] && a < b
	})
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

// lookup returns the blocks whose rsum is key, in increasing order.
func (x *index) lookup(key uint32) []int32 {
	h := x.slot(key)
	if x.filter[h>>6]&(1<<(h&63)) == 0 {
		return nil
	}
	lo := sort.Search(len(x.sorted), func(i int) bool { return x.rsums[x.sorted[i]] >= key })
	hi := lo
	for hi < len(x.sorted) && x.rsums[x.sorted[hi]] == key {
		hi++
	}
	return x.sorted[lo:hi]
}
