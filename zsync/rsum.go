package zsync

// The rolling checksum of zsync (after rsync): over a window x[0..n-1],
// a = sum of x[i] and b = sum of (n-i)·x[i], both modulo 2^16. The 32-bit
// value is a<<16 | b; a control file stores its low RsumBytes bytes.

// rsum computes the rolling checksum of the window p. b is the sum of the
// running sums of a (rsync's s2 += s1), eight bytes a step: the sums wrap
// modulo 2^32, which keeps them right modulo 2^16.
func rsum(p []byte) (a, b uint16) {
	var s1, s2 uint32
	for len(p) >= 8 {
		x0, x1, x2, x3 := uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])
		x4, x5, x6, x7 := uint32(p[4]), uint32(p[5]), uint32(p[6]), uint32(p[7])
		s2 += 8*s1 + 8*x0 + 7*x1 + 6*x2 + 5*x3 + 4*x4 + 3*x5 + 2*x6 + x7
		s1 += x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7
		p = p[8:]
	}
	for _, x := range p {
		s1 += uint32(x)
		s2 += s1
	}
	return uint16(s1), uint16(s2)
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
