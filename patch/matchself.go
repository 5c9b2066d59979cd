package patch

import "encoding/binary"

// selfIndex finds copies from the target window itself: it maps the hash
// of the 8 bytes at each position the matcher looked at to the last such
// position, with the hash's low 32 bits as a tag, so that a slot shared by
// other bytes is rejected without reading the window there (a cache miss
// in a window of megabytes).
type selfIndex struct {
	table    []uint64 // position+1 | tag<<32
	compared int64    // positions whose bytes were compared, for tests
}

const (
	selfBits = 18
	selfLen  = 8
)

func newSelfIndex() *selfIndex { return &selfIndex{table: make([]uint64, 1<<selfBits)} }

func selfHash(b []byte) uint64 { return binary.LittleEndian.Uint64(b) * 0x9E3779B97F4A7C15 }

func (s *selfIndex) slot(h uint64) *uint64 { return &s.table[h>>(64-selfBits)] }

// touch reads the slots of t[from:to] ahead, as index.touch does.
func (s *selfIndex) touch(t []byte, from, to int) uint64 {
	var sum uint64
	for q := from; q < to && q+selfLen <= len(t); q++ {
		sum += *s.slot(selfHash(t[q:]))
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
	e := s.slot(h)
	old := *e
	*e = uint64(q+1) | h<<32
	// An entry at or beyond q was left by a look-ahead past the copy chosen.
	tp := int(uint32(old)) - 1
	if tp < 0 || tp >= q || uint32(old>>32) != uint32(h) {
		return candidate{}
	}
	s.compared++
	f := commonPrefix(t[tp:], t[q:])
	if f < selfLen {
		return candidate{}
	}
	b := commonSuffix(t[lit:q], t[:tp])
	return candidate{start: q - b, n: f + b, addr: int64(tp - b), self: true}
}
