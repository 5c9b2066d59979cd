package patch

import "encoding/binary"

// selfIndex finds copies from the target window itself: it maps the hash
// of the 8 bytes at each position the matcher looked at to the last
// selfWays such positions (a bucket within one cache line, newest first), with
// the hash's low 32 bits as a tag, so that a slot shared by other bytes is
// rejected without reading the window there (a cache miss in a window of
// megabytes). New text repeated in a target (Go code added to a module)
// often repeats a phrase before it repeats a whole block; keeping only
// the latest position cut the copy of the block at the phrase.
type selfIndex struct {
	table    []uint64 // buckets of selfWays entries: position+1 | tag<<32
	compared int64    // positions whose bytes were compared, for tests
}

const (
	selfBits = 18
	selfLen  = 8
	selfWays = 4 // entries per bucket: match shifts them by hand
)

func newSelfIndex() *selfIndex { return &selfIndex{table: make([]uint64, 1<<selfBits)} }

func selfHash(b []byte) uint64 { return binary.LittleEndian.Uint64(b) * 0x9E3779B97F4A7C15 }

// bucket returns the entries for hash h.
func (s *selfIndex) bucket(h uint64) *[selfWays]uint64 {
	i := int(h>>(64-selfBits)) &^ (selfWays - 1)
	return (*[selfWays]uint64)(s.table[i : i+selfWays])
}

// touch reads the slots of t[from:to] ahead, as index.touch does.
func (s *selfIndex) touch(t []byte, from, to int) uint64 {
	var sum uint64
	for q := from; q < to && q+selfLen <= len(t); q++ {
		sum += s.bucket(selfHash(t[q:]))[0]
	}
	return sum
}

// match returns the copy from earlier in the window for t[q:], extended
// backward into t[lit:q] (n == 0: none), and records q.
func (s *selfIndex) match(t []byte, q, lit int) candidate {
	if q+selfLen > len(t) {
		return candidate{}
	}
	h := selfHash(t[q:])
	bucket := s.bucket(h)
	var c candidate
	tag := h << 32
	for _, old := range bucket {
		// An entry at or beyond q was left by a look-ahead past the copy chosen.
		tp := int(uint32(old)) - 1
		if old&^(1<<32-1) != tag || tp < 0 || tp >= q {
			continue
		}
		s.compared++
		f := commonPrefix(t[tp:], t[q:])
		if f < selfLen {
			continue
		}
		b := commonSuffix(t[lit:q], t[:tp])
		// The longest, less its address (VCD_HERE: the distance back).
		if c2 := (candidate{start: q - b, n: f + b, addr: int64(tp - b), self: true}); c.n == 0 || selfGain(c2, q) > selfGain(c, q) {
			c = c2
		}
	}
	bucket[3], bucket[2], bucket[1], bucket[0] = bucket[2], bucket[1], bucket[0], uint64(q+1)|tag
	return c
}

// selfGain is the bytes a copy from the target found at q saves: its
// length less the size of its distance back from q.
func selfGain(c candidate, q int) int {
	return c.n - varintLen(uint64(int64(q)-c.addr))
}
