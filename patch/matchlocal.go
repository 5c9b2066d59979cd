package patch

import "encoding/binary"

// The local search finds copies from the base near the end of the last
// source copy, at any alignment: an insertion or a deletion of a few bytes
// shifts the rest of the target against the base, and a copy from nearby
// costs only a byte or two of address (the near cache). It indexes every
// 4-byte string of up to localBack bytes before and localAhead bytes after
// that end, at most once per copy.
const (
	localBack  = 1 << 10
	localAhead = 3 << 10
	localBits  = 12
	minLocal   = 5   // shortest local match worth a copy
	localMove  = 512 // how far the center moves before the search is rebuilt
)

type local struct {
	center int64 // end of the source copy indexed; -1: none
	start  int64 // base offset of data[0]
	data   []byte
	table  [1 << localBits]int32
}

func localHash(b []byte) uint32 {
	return binary.LittleEndian.Uint32(b) * 0x9E3779B1 >> (32 - localBits)
}

// build indexes the base around center; false if it cannot be read.
func (l *local) build(src *source, center int64) bool {
	l.center = center
	l.start = max(0, center-localBack)
	end := min(src.size, center+localAhead)
	var err error
	if l.data, err = src.appendRange(l.data[:0], l.start, int(end-l.start)); err != nil {
		l.center = -1
		return false
	}
	clear(l.table[:])
	// Nearest to the center last, so it wins a shared slot.
	for i := 0; i+4 <= int(center-l.start); i++ {
		l.table[localHash(l.data[i:])] = int32(i + 1)
	}
	for i := len(l.data) - 4; i >= int(center-l.start); i-- {
		l.table[localHash(l.data[i:])] = int32(i + 1)
	}
	return true
}

// find returns the base offset indexed for the 4 bytes at t[q:], or -1.
func (l *local) find(t []byte, q int) int64 {
	if q+4 > len(t) {
		return -1
	}
	i := int64(l.table[localHash(t[q:])]) - 1
	if i < 0 {
		return -1
	}
	return l.start + i
}

// match returns the local candidate at base offset sp (from find) for
// t[q:], extended backward into t[lit:q], or n == 0.
func (l *local) match(src *source, t []byte, q, lit int, sp int64) candidate {
	i := int(sp - l.start)
	f := commonPrefix(l.data[i:], t[q:])
	src.compared += int64(f)
	if f == len(l.data)-i && q+f < len(t) {
		f += src.matchForward(l.start+int64(len(l.data)), t[q+f:])
	}
	if f < 4 {
		return candidate{}
	}
	b := commonSuffix(t[lit:q], l.data[:i])
	if f+b < minLocal {
		return candidate{}
	}
	return candidate{start: q - b, n: f + b, addr: l.start + int64(i-b)}
}
