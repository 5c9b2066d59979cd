package patch

// addrCache holds the near and same caches of RFC 3284 §5.1–5.3, reset at
// the start of every window.
type addrCache struct {
	near     []int
	same     []int
	nextSlot int
	// updates counts the updates since the last reset; touched lists the
	// same slots they wrote, up to len(same). A reset clears only what was
	// written, so a window costs no more than its instructions even with an
	// application-defined table of 64K same slots.
	updates int
	touched []int
	// cleared and copies count the slots reset and the addresses cached,
	// so tests bound the work of a window by counting it.
	cleared, copies int64
}

func newAddrCache(near, same int) *addrCache {
	return &addrCache{near: make([]int, near), same: make([]int, same*256)}
}

func (c *addrCache) reset() {
	n := min(c.updates, len(c.near))
	clear(c.near[:n])
	c.cleared += int64(n)
	if len(c.touched) < len(c.same) {
		for _, i := range c.touched {
			c.same[i] = 0
		}
		c.cleared += int64(len(c.touched))
	} else {
		clear(c.same)
		c.cleared += int64(len(c.same))
	}
	c.nextSlot, c.updates, c.touched = 0, 0, c.touched[:0]
}

func (c *addrCache) update(addr int) {
	c.updates++
	c.copies++
	if len(c.near) > 0 {
		c.near[c.nextSlot] = addr
		c.nextSlot = (c.nextSlot + 1) % len(c.near)
	}
	if len(c.same) > 0 {
		i := addr % len(c.same)
		c.same[i] = addr
		if len(c.touched) < len(c.same) {
			c.touched = append(c.touched, i)
		}
	}
}

// decode reads the address of a COPY in the given mode; here is the current
// position in the superstring U.
func (c *addrCache) decode(mode int, here int, s *section) (int, error) {
	var addr int
	switch {
	case mode == 0: // VCD_SELF
		v, err := s.size(maxVarint32)
		if err != nil {
			return 0, err
		}
		addr = v
	case mode == 1: // VCD_HERE
		v, err := s.size(maxVarint32)
		if err != nil {
			return 0, err
		}
		addr = here - v
	case mode-2 < len(c.near):
		v, err := s.size(maxVarint32)
		if err != nil {
			return 0, err
		}
		addr = c.near[mode-2] + v
	case mode-2-len(c.near) < len(c.same)/256:
		b, err := s.ReadByte()
		if err != nil {
			return 0, corruptf("addresses section: truncated")
		}
		addr = c.same[(mode-2-len(c.near))*256+int(b)]
	default:
		return 0, corruptf("address mode %d beyond the caches", mode)
	}
	if addr < 0 || addr >= here {
		return 0, corruptf("copy address %d outside [0, %d)", addr, here)
	}
	c.update(addr)
	return addr, nil
}

// encode picks the mode giving the shortest encoding of addr, appends the
// encoded address to dst and updates the caches like the decoder will.
// Among modes of equal length it takes VCD_SELF, then VCD_HERE: a delta
// is often compressed again (a 226 with a content coding), and a
// compressor finds an address copied again from the same place in the
// base as the same bytes, where its distances from recent copies differ
// every time (1% smaller deltas after zstd -19 on Go source).
func (c *addrCache) encode(dst []byte, addr, here int) ([]byte, int) {
	if len(c.same) > 0 && c.same[addr%len(c.same)] == addr {
		slot := addr % len(c.same)
		c.update(addr)
		return append(dst, byte(slot%256)), 2 + len(c.near) + slot/256
	}
	bestMode, best := 0, addr
	if d := here - addr; varintLen(uint64(d)) < varintLen(uint64(best)) {
		bestMode, best = 1, d
	}
	for i, n := range c.near {
		if d := addr - n; d >= 0 && varintLen(uint64(d)) < varintLen(uint64(best)) {
			bestMode, best = 2+i, d
		}
	}
	c.update(addr)
	return appendVarint(dst, uint64(best)), bestMode
}
