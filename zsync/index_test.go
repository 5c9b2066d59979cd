package zsync

import (
	"slices"
	"testing"
)

// TestIndexLookup: keyRange and live walk exactly the live blocks whose
// rsum is the key, for keys many blocks share, keys one block has and keys
// none has; retired blocks are skipped.
func TestIndexLookup(t *testing.T) {
	rsums := make([]uint32, 3000)
	for i := range rsums {
		rsums[i] = uint32(i*7919) % 1000 // each key three times
	}
	rsums[10], rsums[2000] = 5555, 5555
	x := newIndex(rsums)
	walk := func(key uint32) []int {
		var got []int
		lo, hi := x.keyRange(key)
		for p := x.live(lo); p < hi; p = x.live(p + 1) {
			got = append(got, int(x.sorted[p]))
		}
		slices.Sort(got)
		return got
	}
	for key := uint32(0); key < 1100; key++ {
		var want []int
		for i, r := range rsums {
			if r == key {
				want = append(want, i)
			}
		}
		if got := walk(key); !slices.Equal(got, want) {
			t.Errorf("key %d: blocks %v, want %v", key, got, want)
		}
	}
	x.retire(10)
	if got := walk(5555); !slices.Equal(got, []int{2000}) {
		t.Errorf("key 5555 with block 10 retired: blocks %v, want [2000]", got)
	}
	if got := walk(6666); len(got) != 0 {
		t.Errorf("key 6666: blocks %v, want none", got)
	}
}
