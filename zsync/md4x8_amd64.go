//go:build amd64 && !purego

package zsync

import "golang.org/x/sys/cpu"

// haveMD4x8 reports whether md4x8 runs eight lanes at once (AVX2).
var haveMD4x8 = cpu.X86.HasAVX2

// md4x8avx2 is in md4x8_amd64.s.
//
//go:noescape
func md4x8avx2(state *[4][8]uint32, base *byte, stride int, chunks int)

// md4x8 runs MD4's block function on chunks 64-byte blocks of eight lanes,
// lane l from p[l*stride:] on; state holds the eight a, then b, c and d.
// p must hold 7*stride + 64*chunks bytes.
func md4x8(state *[4][8]uint32, p []byte, stride, chunks int) {
	if chunks == 0 {
		return
	}
	_ = p[7*stride+64*chunks-1]
	md4x8avx2(state, &p[0], stride, chunks)
}
