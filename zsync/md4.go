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

// md4Shifts are the rotation amounts of rounds 1 to 3 (RFC 1320, 3.4).
var md4Shifts = [3][4]int{{3, 7, 11, 19}, {3, 5, 9, 13}, {3, 9, 11, 15}}

// md4Round3 is the order in which round 3 takes the words.
var md4Round3 = [16]int{0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15}

func (d *md4) block(p []byte) {
	var x [16]uint32
	for i := range x {
		x[i] = binary.LittleEndian.Uint32(p[4*i:])
	}
	a, b, c, e := d.s[0], d.s[1], d.s[2], d.s[3]
	for i := 0; i < 16; i++ { // round 1: F(X,Y,Z) = XY v not(X) Z
		f := (b & c) | (^b & e)
		a = bits.RotateLeft32(a+f+x[i], md4Shifts[0][i%4])
		a, b, c, e = e, a, b, c
	}
	for i := 0; i < 16; i++ { // round 2: G(X,Y,Z) = XY v XZ v YZ
		g := (b & c) | (b & e) | (c & e)
		k := (i%4)*4 + i/4
		a = bits.RotateLeft32(a+g+x[k]+0x5a827999, md4Shifts[1][i%4])
		a, b, c, e = e, a, b, c
	}
	for i := 0; i < 16; i++ { // round 3: H(X,Y,Z) = X xor Y xor Z
		h := b ^ c ^ e
		a = bits.RotateLeft32(a+h+x[md4Round3[i]]+0x6ed9eba1, md4Shifts[2][i%4])
		a, b, c, e = e, a, b, c
	}
	d.s[0] += a
	d.s[1] += b
	d.s[2] += c
	d.s[3] += e
}
