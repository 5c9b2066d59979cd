package zsync

// The rolling checksum of zsync (after rsync): over a window x[0..n-1],
// a = sum of x[i] and b = sum of (n-i)·x[i], both modulo 2^16. The 32-bit
// value is a<<16 | b; a control file stores its low RsumBytes bytes.

// rsum computes the rolling checksum of the window p.
func rsum(p []byte) (a, b uint16) {
	n := uint16(len(p))
	for i, x := range p {
		a += uint16(x)
		b += (n - uint16(i)) * uint16(x)
	}
	return a, b
}

// roll moves a window of n bytes one byte on: out leaves it, in enters it.
func roll(a, b uint16, out, in byte, n uint16) (uint16, uint16) {
	a += uint16(in) - uint16(out)
	b += a - n*uint16(out)
	return a, b
}

// rsumMask keeps the low n bytes of a 32-bit rsum.
func rsumMask(n int) uint32 {
	return ^uint32(0) >> (32 - 8*n)
}

func join(a, b uint16) uint32 { return uint32(a)<<16 | uint32(b) }
