package patch

import "testing"

// TestEncodeAddressPrefersSelf: among address modes of equal length the
// encoder writes VCD_SELF, then VCD_HERE, so the same base address copied
// twice is the same bytes for a compressor run on the delta afterwards. It
// used to take the numerically smallest value (a near-cache distance that
// differs with every copy before it).
func TestEncodeAddressPrefersSelf(t *testing.T) {
	for _, c := range []struct {
		name       string
		prev       []int // addresses copied before
		addr, here int
		mode, size int
	}{
		{"near as long as self", []int{500}, 1000, 1 << 20, 0, 2},
		{"near shorter than self", []int{990}, 1000, 1 << 20, 2, 1},
		{"here as long as self", nil, 1000, 1500, 0, 2},
		{"here shorter than self", nil, 1 << 20, 1<<20 + 10, 1, 1},
	} {
		cache := newAddrCache(4, 3)
		for _, a := range c.prev {
			cache.encode(nil, a, c.here)
		}
		enc, mode := cache.encode(nil, c.addr, c.here)
		if mode != c.mode || len(enc) != c.size {
			t.Errorf("%s: mode %d in %d bytes, want mode %d in %d", c.name, mode, len(enc), c.mode, c.size)
		}
		d := newAddrCache(4, 3)
		for _, a := range c.prev {
			d.update(a)
		}
		s := &section{b: enc}
		if got, err := d.decode(mode, c.here, s); err != nil || got != c.addr {
			t.Errorf("%s: decoded %d, %v; want %d", c.name, got, err, c.addr)
		}
	}
}
