package patch

import (
	"io"
	"math"
)

// VCDIFF integers (RFC 3284 §2) are big-endian base-128 with the high bit
// set on every byte but the last.

// appendVarint appends the VCDIFF encoding of v.
func appendVarint(dst []byte, v uint64) []byte {
	var tmp [10]byte
	i := len(tmp) - 1
	tmp[i] = byte(v & 0x7f)
	for v >>= 7; v != 0; v >>= 7 {
		i--
		tmp[i] = byte(v&0x7f) | 0x80
	}
	return append(dst, tmp[i:]...)
}

// readVarint reads an integer no larger than limit from r, returning it and
// the number of bytes it took. Overlong or out-of-range integers are corrupt.
func readVarint(r io.ByteReader, limit uint64, what string) (uint64, int, error) {
	var v uint64
	for n := 1; ; n++ {
		c, err := r.ReadByte()
		if err != nil {
			return 0, n - 1, corruptf("%s: truncated integer", what)
		}
		if v > math.MaxUint64>>7 {
			return 0, n, corruptf("%s: integer overflow", what)
		}
		v = v<<7 | uint64(c&0x7f)
		if v > limit {
			return 0, n, corruptf("%s: integer %d out of range (max %d)", what, v, limit)
		}
		if c&0x80 == 0 {
			return v, n, nil
		}
	}
}

// section is an in-memory part of a window: data, instructions or addresses.
type section struct {
	b    []byte
	pos  int
	name string
}

func (s *section) ReadByte() (byte, error) {
	if s.pos >= len(s.b) {
		return 0, io.ErrUnexpectedEOF
	}
	c := s.b[s.pos]
	s.pos++
	return c, nil
}

// size reads an integer bounded by limit.
func (s *section) size(limit int) (int, error) {
	v, _, err := readVarint(s, uint64(limit), s.name)
	return int(v), err
}

// take returns the next n bytes.
func (s *section) take(n int) ([]byte, error) {
	if n > len(s.b)-s.pos {
		return nil, corruptf("%s section: want %d more bytes, have %d", s.name, n, len(s.b)-s.pos)
	}
	p := s.b[s.pos : s.pos+n]
	s.pos += n
	return p, nil
}

func (s *section) remaining() int { return len(s.b) - s.pos }

// varintLen is the length of the VCDIFF encoding of v.
func varintLen(v uint64) int {
	n := 1
	for v >>= 7; v != 0; v >>= 7 {
		n++
	}
	return n
}
