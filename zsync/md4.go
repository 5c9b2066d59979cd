package zsync

import (
	"encoding/binary"
	"hash"
	"math/bits"
)

// MD4 (RFC 1320) is what zsync 0.6.2 uses for its per-block checksums. It is
// broken as a cryptographic hash; here it only confirms a rolling-checksum
// hit, and the whole file is checked with SHA-1.

// md4Size is the size of an MD4 digest in bytes.
const md4Size = 16

const md4BlockSize = 64

type md4 struct {
	s   [4]uint32
	buf [md4BlockSize]byte
	nb  int    // bytes in buf
	len uint64 // bytes written in total
}

// newMD4 returns a new MD4 hash.
func newMD4() hash.Hash {
	d := &md4{}
	d.Reset()
	return d
}

func (d *md4) Reset() {
	d.s = [4]uint32{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}
	d.nb = 0
	d.len = 0
}

func (d *md4) Size() int      { return md4Size }
func (d *md4) BlockSize() int { return md4BlockSize }

func (d *md4) Write(p []byte) (int, error) {
	n := len(p)
	d.len += uint64(n)
	if d.nb > 0 {
		c := copy(d.buf[d.nb:], p)
		d.nb += c
		p = p[c:]
		if d.nb == md4BlockSize {
			d.block(d.buf[:])
			d.nb = 0
		}
	}
	for len(p) >= md4BlockSize {
		d.block(p[:md4BlockSize])
		p = p[md4BlockSize:]
	}
	d.nb += copy(d.buf[:], p)
	return n, nil
}

func (d *md4) Sum(in []byte) []byte {
	c := *d // Sum does not change the running state
	var pad [md4BlockSize + 8]byte
	pad[0] = 0x80
	n := 56 - int(c.len%md4BlockSize)
	if n <= 0 {
		n += md4BlockSize
	}
	binary.LittleEndian.PutUint64(pad[n:], c.len<<3)
	c.Write(pad[:n+8])
	var out [md4Size]byte
	for i, v := range c.s {
		binary.LittleEndian.PutUint32(out[4*i:], v)
	}
	return append(in, out[:]...)
}

// block runs MD4's three rounds (RFC 1320, 3.4) on one 64-byte block,
// unrolled: constant rotations, words in registers.
func (s *md4) block(p []byte) {
	_ = p[63]
	x0 := binary.LittleEndian.Uint32(p[0:])
	x1 := binary.LittleEndian.Uint32(p[4:])
	x2 := binary.LittleEndian.Uint32(p[8:])
	x3 := binary.LittleEndian.Uint32(p[12:])
	x4 := binary.LittleEndian.Uint32(p[16:])
	x5 := binary.LittleEndian.Uint32(p[20:])
	x6 := binary.LittleEndian.Uint32(p[24:])
	x7 := binary.LittleEndian.Uint32(p[28:])
	x8 := binary.LittleEndian.Uint32(p[32:])
	x9 := binary.LittleEndian.Uint32(p[36:])
	x10 := binary.LittleEndian.Uint32(p[40:])
	x11 := binary.LittleEndian.Uint32(p[44:])
	x12 := binary.LittleEndian.Uint32(p[48:])
	x13 := binary.LittleEndian.Uint32(p[52:])
	x14 := binary.LittleEndian.Uint32(p[56:])
	x15 := binary.LittleEndian.Uint32(p[60:])
	a, b, c, d := s.s[0], s.s[1], s.s[2], s.s[3]
	// round 1: F(X,Y,Z) = XY v not(X) Z
	a = bits.RotateLeft32(a+((c^d)&b^d)+x0, 3)
	d = bits.RotateLeft32(d+((b^c)&a^c)+x1, 7)
	c = bits.RotateLeft32(c+((a^b)&d^b)+x2, 11)
	b = bits.RotateLeft32(b+((d^a)&c^a)+x3, 19)
	a = bits.RotateLeft32(a+((c^d)&b^d)+x4, 3)
	d = bits.RotateLeft32(d+((b^c)&a^c)+x5, 7)
	c = bits.RotateLeft32(c+((a^b)&d^b)+x6, 11)
	b = bits.RotateLeft32(b+((d^a)&c^a)+x7, 19)
	a = bits.RotateLeft32(a+((c^d)&b^d)+x8, 3)
	d = bits.RotateLeft32(d+((b^c)&a^c)+x9, 7)
	c = bits.RotateLeft32(c+((a^b)&d^b)+x10, 11)
	b = bits.RotateLeft32(b+((d^a)&c^a)+x11, 19)
	a = bits.RotateLeft32(a+((c^d)&b^d)+x12, 3)
	d = bits.RotateLeft32(d+((b^c)&a^c)+x13, 7)
	c = bits.RotateLeft32(c+((a^b)&d^b)+x14, 11)
	b = bits.RotateLeft32(b+((d^a)&c^a)+x15, 19)
	// round 2: G(X,Y,Z) = XY v XZ v YZ
	a = bits.RotateLeft32(a+(b&c|(b|c)&d)+x0+0x5a827999, 3)
	d = bits.RotateLeft32(d+(a&b|(a|b)&c)+x4+0x5a827999, 5)
	c = bits.RotateLeft32(c+(d&a|(d|a)&b)+x8+0x5a827999, 9)
	b = bits.RotateLeft32(b+(c&d|(c|d)&a)+x12+0x5a827999, 13)
	a = bits.RotateLeft32(a+(b&c|(b|c)&d)+x1+0x5a827999, 3)
	d = bits.RotateLeft32(d+(a&b|(a|b)&c)+x5+0x5a827999, 5)
	c = bits.RotateLeft32(c+(d&a|(d|a)&b)+x9+0x5a827999, 9)
	b = bits.RotateLeft32(b+(c&d|(c|d)&a)+x13+0x5a827999, 13)
	a = bits.RotateLeft32(a+(b&c|(b|c)&d)+x2+0x5a827999, 3)
	d = bits.RotateLeft32(d+(a&b|(a|b)&c)+x6+0x5a827999, 5)
	c = bits.RotateLeft32(c+(d&a|(d|a)&b)+x10+0x5a827999, 9)
	b = bits.RotateLeft32(b+(c&d|(c|d)&a)+x14+0x5a827999, 13)
	a = bits.RotateLeft32(a+(b&c|(b|c)&d)+x3+0x5a827999, 3)
	d = bits.RotateLeft32(d+(a&b|(a|b)&c)+x7+0x5a827999, 5)
	c = bits.RotateLeft32(c+(d&a|(d|a)&b)+x11+0x5a827999, 9)
	b = bits.RotateLeft32(b+(c&d|(c|d)&a)+x15+0x5a827999, 13)
	// round 3: H(X,Y,Z) = X xor Y xor Z
	a = bits.RotateLeft32(a+(b^c^d)+x0+0x6ed9eba1, 3)
	d = bits.RotateLeft32(d+(a^b^c)+x8+0x6ed9eba1, 9)
	c = bits.RotateLeft32(c+(d^a^b)+x4+0x6ed9eba1, 11)
	b = bits.RotateLeft32(b+(c^d^a)+x12+0x6ed9eba1, 15)
	a = bits.RotateLeft32(a+(b^c^d)+x2+0x6ed9eba1, 3)
	d = bits.RotateLeft32(d+(a^b^c)+x10+0x6ed9eba1, 9)
	c = bits.RotateLeft32(c+(d^a^b)+x6+0x6ed9eba1, 11)
	b = bits.RotateLeft32(b+(c^d^a)+x14+0x6ed9eba1, 15)
	a = bits.RotateLeft32(a+(b^c^d)+x1+0x6ed9eba1, 3)
	d = bits.RotateLeft32(d+(a^b^c)+x9+0x6ed9eba1, 9)
	c = bits.RotateLeft32(c+(d^a^b)+x5+0x6ed9eba1, 11)
	b = bits.RotateLeft32(b+(c^d^a)+x13+0x6ed9eba1, 15)
	a = bits.RotateLeft32(a+(b^c^d)+x3+0x6ed9eba1, 3)
	d = bits.RotateLeft32(d+(a^b^c)+x11+0x6ed9eba1, 9)
	c = bits.RotateLeft32(c+(d^a^b)+x7+0x6ed9eba1, 11)
	b = bits.RotateLeft32(b+(c^d^a)+x15+0x6ed9eba1, 15)
	s.s[0] += a
	s.s[1] += b
	s.s[2] += c
	s.s[3] += d
}
