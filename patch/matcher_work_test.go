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
