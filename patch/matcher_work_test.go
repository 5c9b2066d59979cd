package patch

import (
	"bytes"
	"testing"
)

// matchWindows runs the matcher over target in windows of size w and
// returns it, for tests that count its work.
func matchWindows(t *testing.T, base, target []byte, w int, opts ...Option) *matcher {
	t.Helper()
	m, err := newMatcher(bytes.NewReader(base), int64(len(base)), newConfig(opts), true)
	if err != nil {
		t.Fatal(err)
	}
	for len(target) > 0 {
		n := min(w, len(target))
		m.window(target[:n])
		target = target[n:]
	}
	return m
}

// TestMatcherComparesEachByteOnce: on a base with random bytes inserted,
// the copies found by the continuation, the diagonal, the local search and
// the index are the same long match; it is compared with the base once,
// not once per way of finding it (the 16 MiB and 1 GiB profiles spent a
// quarter of their time comparing the same bytes again).
func TestMatcherComparesEachByteOnce(t *testing.T) {
	base := random(51, 4<<20)
	target := append(append(bytes.Clone(base[:4096]), random(52, 256<<10)...), base[4096:]...)
	for _, level := range []int{1, DefaultLevel, 9} {
		m := matchWindows(t, base, target, 1<<20, WithLevel(level))
		if max := int64(len(target) + len(target)/64); m.src.compared > max {
			t.Errorf("level %d: compared %d bytes of target with the base, want at most %d (%d bytes of target)", level, m.src.compared, max, len(target))
		}
	}
}

// TestSelfIndexReadsOnlyLikelyMatches: in a window of random bytes, where
// nothing repeats, the target index's slots are all taken by other bytes;
// their tags reject them without reading the window at the position they
// name (a cache miss each in a window of megabytes).
func TestSelfIndexReadsOnlyLikelyMatches(t *testing.T) {
	target := random(53, 4<<20)
	m := matchWindows(t, random(54, 64<<10), target, 4<<20)
	if max := int64(len(target) / 1000); m.self.compared > max {
		t.Errorf("compared the window at %d earlier positions, want at most %d", m.self.compared, max)
	}
}

// TestEncoderCacheOfLargeBase: a base the block cache holds is cached
// whole; a larger one is read through a quarter of the cache size, whose
// memory the copies, reading the base in order, do not need (filling 64
// MiB of cache was a third of the encode time of a 1 GiB base).
func TestEncoderCacheOfLargeBase(t *testing.T) {
	for _, c := range []struct {
		base, cache, want int
	}{
		{3 << 20, 4 << 20, 3 << 20},
		{4 << 20, 4 << 20, 4 << 20},
		{6 << 20, 4 << 20, 1 << 20},
	} {
		base := random(55, c.base)
		m := matchWindows(t, base, base[:1<<20], 1<<20, WithCacheSize(c.cache))
		if got := len(m.src.blocks) * blockSize; got != c.want {
			t.Errorf("base of %d bytes, cache size %d: cache of %d bytes, want %d", c.base, c.cache, got, c.want)
		}
	}
}

// TestMatcherResumesEarlierDiagonal: after a long copy from elsewhere in
// the base (a licence header pasted into a file of a tar), the target goes
// on where it was: a continuation too short for the sparse index to be
// sure to find is found on the diagonal of the earlier long copy. (A tar
// of Go sources: 3400 bytes at -l 9 where xdelta3 writes 2625.)
func TestMatcherResumesEarlierDiagonal(t *testing.T) {
	base := random(56, 64<<10)
	var target []byte
	target = append(target, base[:4000]...)
	target = append(target, base[40000:40400]...) // from elsewhere
	target = append(target, base[4400:4500]...)   // back on the first diagonal
	target = append(target, random(57, 50)...)
	target = append(target, base[4550:8000]...)
	m := matchWindows(t, base, target, len(target), WithIndexSize(1024))
	pos := 0
	for _, o := range m.ops {
		if o.kind == instCopy && !o.self && pos <= 4400 && pos+o.n >= 4500 && o.addr-int64(pos) == 0 {
			return
		}
		pos += o.n
	}
	t.Errorf("target [4400, 4500) not copied from the base at the same offset; ops: %+v", m.ops)
}

// TestGainCountsAddressCaches: the matcher's estimate of a copy's address
// size is the size the encoder writes when the address is near the start
// of a recent copy (the near cache) or of the window's segment (VCD_SELF),
// not only near the end of the last copy: it used to count 3 bytes for an
// address written in 1.
func TestGainCountsAddressCaches(t *testing.T) {
	m := &matcher{lastEnd: 1 << 20, near: [4]int64{5000, 1 << 21, -1, -1}, segMin: -1}
	for _, c := range []struct {
		addr   int64
		segMin int64
	}{{5010, -1}, {5000 + 200, -1}, {300, 100}} {
		m.segMin = c.segMin
		seg := max(c.segMin, 0)
		cache := newAddrCache(4, 3)
		here := 1 << 22
		for _, a := range m.near {
			if a >= 0 {
				cache.encode(nil, int(a-seg), here)
			}
		}
		enc, _ := cache.encode(nil, int(c.addr-seg), here)
		cand := candidate{start: 0, n: 100, addr: c.addr}
		if got := 100 - m.gain(cand, 0); got != len(enc) {
			t.Errorf("copy from %d (segment from %d): estimated %d address bytes, the encoder writes %d", c.addr, seg, got, len(enc))
		}
	}
}

// TestGainCountsSameCache: a copy from the address of an earlier copy in
// the window costs one byte, its slot in the same cache, as the encoder
// writes it; the matcher used to count the distance from the near cache
// (3 bytes here), so it could prefer another candidate for the same bytes.
func TestGainCountsSameCache(t *testing.T) {
	m := &matcher{lastEnd: 1 << 20, near: [4]int64{-1, -1, -1, -1}, segMin: -1}
	cache := newAddrCache(4, 3)
	here := 1 << 22
	const addr = 3 << 20
	m.noteAddr(candidate{n: 100, addr: addr})
	cache.encode(nil, addr, here)
	for i := int64(1); i <= 4; i++ { // the near cache moves on; the same cache keeps addr
		m.noteAddr(candidate{n: 100, addr: i*1000 + 1})
		cache.encode(nil, int(i*1000+1), here)
	}
	enc, _ := cache.encode(nil, addr, here)
	cand := candidate{start: 0, n: 100, addr: addr}
	if got := 100 - m.gain(cand, 0); got != len(enc) || got != 1 {
		t.Errorf("copy from %d again: estimated %d address bytes, the encoder writes %d (want 1)", addr, got, len(enc))
	}
}

// TestSelfIndexFindsLongerEarlierMatch: new text that repeats in the
// target is copied whole from its first occurrence, although a later one
// shares only its first 20 bytes; the target index kept one position per
// hash, the latest, and the copy was cut in two.
func TestSelfIndexFindsLongerEarlierMatch(t *testing.T) {
	x := random(55, 300)
	target := append(bytes.Clone(x), x[:20]...)
	target = append(append(target, random(56, 100)...), x...)
	from := len(target) - len(x)
	m := matchWindows(t, random(57, 64<<10), target, len(target))
	pos := 0
	for _, o := range m.ops {
		if o.kind == instCopy && pos <= from && pos+o.n >= len(target) {
			return
		}
		pos += o.n
	}
	t.Errorf("target [%d, %d) not one copy; ops: %+v", from, len(target), m.ops)
}

// TestGainCountsCopiesFromTarget: copies from the target take slots of
// the encoder's near cache (with their address in the target window), so
// after four of them a copy from next to an earlier copy from the base is
// written as its whole address; the matcher counted 1 byte for it.
func TestGainCountsCopiesFromTarget(t *testing.T) {
	m := &matcher{lastEnd: -1, near: [4]int64{-1, -1, -1, -1}, segMin: -1}
	cache := newAddrCache(4, 3)
	const seg = 1 << 22 // bytes of base before the target in the encoder's addresses
	m.noteAddr(candidate{n: 100, addr: 1 << 20})
	cache.encode(nil, 1<<20, seg)
	for i := 1; i <= 4; i++ {
		m.noteAddr(candidate{n: 20, addr: int64(100 * i), self: true})
		cache.encode(nil, seg+100*i, seg+1000*i)
	}
	const addr = 1<<20 + 10
	enc, _ := cache.encode(nil, addr, seg+5000)
	cand := candidate{start: 0, n: 100, addr: addr}
	if got := 100 - m.gain(cand, 0); got != len(enc) {
		t.Errorf("copy from %d: estimated %d address bytes, the encoder writes %d", addr, got, len(enc))
	}
}
