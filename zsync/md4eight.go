package zsync

import "encoding/binary"

// Eight MD4s at once, where the CPU has eight 32-bit lanes (AVX2, in
// md4x8_amd64.s): where a run of matching blocks goes on, the scan hashes
// the window's block and the seven after it in one pass, for about the
// time of two one after the other. TestMD4Eight checks it against md4.

// md4Eight computes the MD4s of the eight blocks of bs bytes at the start
// of p (block k is p[k*bs:(k+1)*bs]) into out. It reports false, having
// computed nothing, when eight lanes are not available here or bs is not
// a multiple of 64 (the lanes then all end with the same padding block).
func md4Eight(p []byte, bs int, out *[8][md4Size]byte) bool {
	if !haveMD4x8 || bs < md4BlockSize || bs%md4BlockSize != 0 || bs > MaxBlocksize || len(p) < 8*bs {
		return false
	}
	var st [4][8]uint32
	for l := range 8 {
		st[0][l], st[1][l], st[2][l], st[3][l] = 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476
	}
	md4x8(&st, p, bs, bs/md4BlockSize)
	var pad [md4BlockSize]byte // 0x80, zeros, the length in bits
	pad[0] = 0x80
	binary.LittleEndian.PutUint64(pad[md4BlockSize-8:], uint64(bs)<<3)
	for l := range 8 {
		d := md4{s: [4]uint32{st[0][l], st[1][l], st[2][l], st[3][l]}}
		d.block(pad[:])
		for i, v := range d.s {
			binary.LittleEndian.PutUint32(out[l][4*i:], v)
		}
	}
	return true
}

// md4x8Lanes is md4x8 one lane after the other: the reference the tests
// hold the vector code to, and md4x8 where there is none.
func md4x8Lanes(state *[4][8]uint32, p []byte, stride, chunks int) {
	for l := range 8 {
		d := md4{s: [4]uint32{state[0][l], state[1][l], state[2][l], state[3][l]}}
		for k := range chunks {
			d.block(p[l*stride+k*md4BlockSize:])
		}
		state[0][l], state[1][l], state[2][l], state[3][l] = d.s[0], d.s[1], d.s[2], d.s[3]
	}
}
