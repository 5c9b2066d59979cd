package zsync

import (
	"encoding/binary"
	"math/bits"
)

// Two MD4s at once. One MD4 is a chain of 48 dependent steps, each a few
// instructions long, which leaves most of a core's arithmetic units idle;
// two independent inputs hashed in one loop, their steps interleaved, go
// through in little more than the time of one. The scan hashes windows
// that way when it expects to need the next one too (md4Two), and
// TestMD4Two checks it against the one-at-a-time md4.

// md4Two computes the MD4 of p into sp and of q into sq; p and q must
// have the same length.
func md4Two(p, q []byte, sp, sq *[md4Size]byte) {
	if len(p) != len(q) {
		panic("zsync: md4Two of inputs of different lengths")
	}
	n := uint64(len(p))
	s0 := [4]uint32{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}
	s1 := s0
	for len(p) >= md4BlockSize {
		block2(&s0, &s1, p, q)
		p, q = p[md4BlockSize:], q[md4BlockSize:]
	}
	// The tails, padded as md4.Sum pads: 0x80, zeros, the bit length.
	var t0, t1 [2 * md4BlockSize]byte
	copy(t0[:], p)
	copy(t1[:], q)
	t0[len(p)], t1[len(q)] = 0x80, 0x80
	end := md4BlockSize
	if len(p) >= md4BlockSize-8 {
		end = 2 * md4BlockSize
	}
	binary.LittleEndian.PutUint64(t0[end-8:], n<<3)
	binary.LittleEndian.PutUint64(t1[end-8:], n<<3)
	for k := 0; k < end; k += md4BlockSize {
		block2(&s0, &s1, t0[k:end], t1[k:end])
	}
	for i := range 4 {
		binary.LittleEndian.PutUint32(sp[4*i:], s0[i])
		binary.LittleEndian.PutUint32(sq[4*i:], s1[i])
	}
}

func le(p []byte) uint32 { return binary.LittleEndian.Uint32(p) }

// block2 runs md4.block's steps on a 64-byte block of each of two inputs,
// lane 0 (a0…d0, p0) and lane 1 (a1…d1, p1) one step after the other.
func block2(s0, s1 *[4]uint32, p0, p1 []byte) {
	_, _ = p0[63], p1[63]
	a0, b0, c0, d0 := s0[0], s0[1], s0[2], s0[3]
	a1, b1, c1, d1 := s1[0], s1[1], s1[2], s1[3]
	// round 1: F(X,Y,Z) = XY v not(X) Z
	a0 = bits.RotateLeft32(a0+((c0^d0)&b0^d0)+le(p0[0:]), 3)
	a1 = bits.RotateLeft32(a1+((c1^d1)&b1^d1)+le(p1[0:]), 3)
	d0 = bits.RotateLeft32(d0+((b0^c0)&a0^c0)+le(p0[4:]), 7)
	d1 = bits.RotateLeft32(d1+((b1^c1)&a1^c1)+le(p1[4:]), 7)
	c0 = bits.RotateLeft32(c0+((a0^b0)&d0^b0)+le(p0[8:]), 11)
	c1 = bits.RotateLeft32(c1+((a1^b1)&d1^b1)+le(p1[8:]), 11)
	b0 = bits.RotateLeft32(b0+((d0^a0)&c0^a0)+le(p0[12:]), 19)
	b1 = bits.RotateLeft32(b1+((d1^a1)&c1^a1)+le(p1[12:]), 19)
	a0 = bits.RotateLeft32(a0+((c0^d0)&b0^d0)+le(p0[16:]), 3)
	a1 = bits.RotateLeft32(a1+((c1^d1)&b1^d1)+le(p1[16:]), 3)
	d0 = bits.RotateLeft32(d0+((b0^c0)&a0^c0)+le(p0[20:]), 7)
	d1 = bits.RotateLeft32(d1+((b1^c1)&a1^c1)+le(p1[20:]), 7)
	c0 = bits.RotateLeft32(c0+((a0^b0)&d0^b0)+le(p0[24:]), 11)
	c1 = bits.RotateLeft32(c1+((a1^b1)&d1^b1)+le(p1[24:]), 11)
	b0 = bits.RotateLeft32(b0+((d0^a0)&c0^a0)+le(p0[28:]), 19)
	b1 = bits.RotateLeft32(b1+((d1^a1)&c1^a1)+le(p1[28:]), 19)
	a0 = bits.RotateLeft32(a0+((c0^d0)&b0^d0)+le(p0[32:]), 3)
	a1 = bits.RotateLeft32(a1+((c1^d1)&b1^d1)+le(p1[32:]), 3)
	d0 = bits.RotateLeft32(d0+((b0^c0)&a0^c0)+le(p0[36:]), 7)
	d1 = bits.RotateLeft32(d1+((b1^c1)&a1^c1)+le(p1[36:]), 7)
	c0 = bits.RotateLeft32(c0+((a0^b0)&d0^b0)+le(p0[40:]), 11)
	c1 = bits.RotateLeft32(c1+((a1^b1)&d1^b1)+le(p1[40:]), 11)
	b0 = bits.RotateLeft32(b0+((d0^a0)&c0^a0)+le(p0[44:]), 19)
	b1 = bits.RotateLeft32(b1+((d1^a1)&c1^a1)+le(p1[44:]), 19)
	a0 = bits.RotateLeft32(a0+((c0^d0)&b0^d0)+le(p0[48:]), 3)
	a1 = bits.RotateLeft32(a1+((c1^d1)&b1^d1)+le(p1[48:]), 3)
	d0 = bits.RotateLeft32(d0+((b0^c0)&a0^c0)+le(p0[52:]), 7)
	d1 = bits.RotateLeft32(d1+((b1^c1)&a1^c1)+le(p1[52:]), 7)
	c0 = bits.RotateLeft32(c0+((a0^b0)&d0^b0)+le(p0[56:]), 11)
	c1 = bits.RotateLeft32(c1+((a1^b1)&d1^b1)+le(p1[56:]), 11)
	b0 = bits.RotateLeft32(b0+((d0^a0)&c0^a0)+le(p0[60:]), 19)
	b1 = bits.RotateLeft32(b1+((d1^a1)&c1^a1)+le(p1[60:]), 19)
	// round 2: G(X,Y,Z) = XY v XZ v YZ
	a0 = bits.RotateLeft32(a0+(b0&c0|(b0|c0)&d0)+le(p0[0:])+0x5a827999, 3)
	a1 = bits.RotateLeft32(a1+(b1&c1|(b1|c1)&d1)+le(p1[0:])+0x5a827999, 3)
	d0 = bits.RotateLeft32(d0+(a0&b0|(a0|b0)&c0)+le(p0[16:])+0x5a827999, 5)
	d1 = bits.RotateLeft32(d1+(a1&b1|(a1|b1)&c1)+le(p1[16:])+0x5a827999, 5)
	c0 = bits.RotateLeft32(c0+(d0&a0|(d0|a0)&b0)+le(p0[32:])+0x5a827999, 9)
	c1 = bits.RotateLeft32(c1+(d1&a1|(d1|a1)&b1)+le(p1[32:])+0x5a827999, 9)
	b0 = bits.RotateLeft32(b0+(c0&d0|(c0|d0)&a0)+le(p0[48:])+0x5a827999, 13)
	b1 = bits.RotateLeft32(b1+(c1&d1|(c1|d1)&a1)+le(p1[48:])+0x5a827999, 13)
	a0 = bits.RotateLeft32(a0+(b0&c0|(b0|c0)&d0)+le(p0[4:])+0x5a827999, 3)
	a1 = bits.RotateLeft32(a1+(b1&c1|(b1|c1)&d1)+le(p1[4:])+0x5a827999, 3)
	d0 = bits.RotateLeft32(d0+(a0&b0|(a0|b0)&c0)+le(p0[20:])+0x5a827999, 5)
	d1 = bits.RotateLeft32(d1+(a1&b1|(a1|b1)&c1)+le(p1[20:])+0x5a827999, 5)
	c0 = bits.RotateLeft32(c0+(d0&a0|(d0|a0)&b0)+le(p0[36:])+0x5a827999, 9)
	c1 = bits.RotateLeft32(c1+(d1&a1|(d1|a1)&b1)+le(p1[36:])+0x5a827999, 9)
	b0 = bits.RotateLeft32(b0+(c0&d0|(c0|d0)&a0)+le(p0[52:])+0x5a827999, 13)
	b1 = bits.RotateLeft32(b1+(c1&d1|(c1|d1)&a1)+le(p1[52:])+0x5a827999, 13)
	a0 = bits.RotateLeft32(a0+(b0&c0|(b0|c0)&d0)+le(p0[8:])+0x5a827999, 3)
	a1 = bits.RotateLeft32(a1+(b1&c1|(b1|c1)&d1)+le(p1[8:])+0x5a827999, 3)
	d0 = bits.RotateLeft32(d0+(a0&b0|(a0|b0)&c0)+le(p0[24:])+0x5a827999, 5)
	d1 = bits.RotateLeft32(d1+(a1&b1|(a1|b1)&c1)+le(p1[24:])+0x5a827999, 5)
	c0 = bits.RotateLeft32(c0+(d0&a0|(d0|a0)&b0)+le(p0[40:])+0x5a827999, 9)
	c1 = bits.RotateLeft32(c1+(d1&a1|(d1|a1)&b1)+le(p1[40:])+0x5a827999, 9)
	b0 = bits.RotateLeft32(b0+(c0&d0|(c0|d0)&a0)+le(p0[56:])+0x5a827999, 13)
	b1 = bits.RotateLeft32(b1+(c1&d1|(c1|d1)&a1)+le(p1[56:])+0x5a827999, 13)
	a0 = bits.RotateLeft32(a0+(b0&c0|(b0|c0)&d0)+le(p0[12:])+0x5a827999, 3)
	a1 = bits.RotateLeft32(a1+(b1&c1|(b1|c1)&d1)+le(p1[12:])+0x5a827999, 3)
	d0 = bits.RotateLeft32(d0+(a0&b0|(a0|b0)&c0)+le(p0[28:])+0x5a827999, 5)
	d1 = bits.RotateLeft32(d1+(a1&b1|(a1|b1)&c1)+le(p1[28:])+0x5a827999, 5)
	c0 = bits.RotateLeft32(c0+(d0&a0|(d0|a0)&b0)+le(p0[44:])+0x5a827999, 9)
	c1 = bits.RotateLeft32(c1+(d1&a1|(d1|a1)&b1)+le(p1[44:])+0x5a827999, 9)
	b0 = bits.RotateLeft32(b0+(c0&d0|(c0|d0)&a0)+le(p0[60:])+0x5a827999, 13)
	b1 = bits.RotateLeft32(b1+(c1&d1|(c1|d1)&a1)+le(p1[60:])+0x5a827999, 13)
	// round 3: H(X,Y,Z) = X xor Y xor Z
	a0 = bits.RotateLeft32(a0+(b0^c0^d0)+le(p0[0:])+0x6ed9eba1, 3)
	a1 = bits.RotateLeft32(a1+(b1^c1^d1)+le(p1[0:])+0x6ed9eba1, 3)
	d0 = bits.RotateLeft32(d0+(a0^b0^c0)+le(p0[32:])+0x6ed9eba1, 9)
	d1 = bits.RotateLeft32(d1+(a1^b1^c1)+le(p1[32:])+0x6ed9eba1, 9)
	c0 = bits.RotateLeft32(c0+(d0^a0^b0)+le(p0[16:])+0x6ed9eba1, 11)
	c1 = bits.RotateLeft32(c1+(d1^a1^b1)+le(p1[16:])+0x6ed9eba1, 11)
	b0 = bits.RotateLeft32(b0+(c0^d0^a0)+le(p0[48:])+0x6ed9eba1, 15)
	b1 = bits.RotateLeft32(b1+(c1^d1^a1)+le(p1[48:])+0x6ed9eba1, 15)
	a0 = bits.RotateLeft32(a0+(b0^c0^d0)+le(p0[8:])+0x6ed9eba1, 3)
	a1 = bits.RotateLeft32(a1+(b1^c1^d1)+le(p1[8:])+0x6ed9eba1, 3)
	d0 = bits.RotateLeft32(d0+(a0^b0^c0)+le(p0[40:])+0x6ed9eba1, 9)
	d1 = bits.RotateLeft32(d1+(a1^b1^c1)+le(p1[40:])+0x6ed9eba1, 9)
	c0 = bits.RotateLeft32(c0+(d0^a0^b0)+le(p0[24:])+0x6ed9eba1, 11)
	c1 = bits.RotateLeft32(c1+(d1^a1^b1)+le(p1[24:])+0x6ed9eba1, 11)
	b0 = bits.RotateLeft32(b0+(c0^d0^a0)+le(p0[56:])+0x6ed9eba1, 15)
	b1 = bits.RotateLeft32(b1+(c1^d1^a1)+le(p1[56:])+0x6ed9eba1, 15)
	a0 = bits.RotateLeft32(a0+(b0^c0^d0)+le(p0[4:])+0x6ed9eba1, 3)
	a1 = bits.RotateLeft32(a1+(b1^c1^d1)+le(p1[4:])+0x6ed9eba1, 3)
	d0 = bits.RotateLeft32(d0+(a0^b0^c0)+le(p0[36:])+0x6ed9eba1, 9)
	d1 = bits.RotateLeft32(d1+(a1^b1^c1)+le(p1[36:])+0x6ed9eba1, 9)
	c0 = bits.RotateLeft32(c0+(d0^a0^b0)+le(p0[20:])+0x6ed9eba1, 11)
	c1 = bits.RotateLeft32(c1+(d1^a1^b1)+le(p1[20:])+0x6ed9eba1, 11)
	b0 = bits.RotateLeft32(b0+(c0^d0^a0)+le(p0[52:])+0x6ed9eba1, 15)
	b1 = bits.RotateLeft32(b1+(c1^d1^a1)+le(p1[52:])+0x6ed9eba1, 15)
	a0 = bits.RotateLeft32(a0+(b0^c0^d0)+le(p0[12:])+0x6ed9eba1, 3)
	a1 = bits.RotateLeft32(a1+(b1^c1^d1)+le(p1[12:])+0x6ed9eba1, 3)
	d0 = bits.RotateLeft32(d0+(a0^b0^c0)+le(p0[44:])+0x6ed9eba1, 9)
	d1 = bits.RotateLeft32(d1+(a1^b1^c1)+le(p1[44:])+0x6ed9eba1, 9)
	c0 = bits.RotateLeft32(c0+(d0^a0^b0)+le(p0[28:])+0x6ed9eba1, 11)
	c1 = bits.RotateLeft32(c1+(d1^a1^b1)+le(p1[28:])+0x6ed9eba1, 11)
	b0 = bits.RotateLeft32(b0+(c0^d0^a0)+le(p0[60:])+0x6ed9eba1, 15)
	b1 = bits.RotateLeft32(b1+(c1^d1^a1)+le(p1[60:])+0x6ed9eba1, 15)
	s0[0], s0[1], s0[2], s0[3] = s0[0]+a0, s0[1]+b0, s0[2]+c0, s0[3]+d0
	s1[0], s1[1], s1[2], s1[3] = s1[0]+a1, s1[1]+b1, s1[2]+c1, s1[3]+d1
}
