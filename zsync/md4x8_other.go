//go:build !amd64 || purego

package zsync

// haveMD4x8 reports whether md4x8 runs eight lanes at once: not here.
const haveMD4x8 = false

// md4x8 runs MD4's block function on chunks 64-byte blocks of eight lanes,
// lane l from p[l*stride:] on, one lane after another (md4x8Lanes).
func md4x8(state *[4][8]uint32, p []byte, stride, chunks int) {
	md4x8Lanes(state, p, stride, chunks)
}
