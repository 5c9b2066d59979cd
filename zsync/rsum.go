package zsync

import "encoding/binary"

// The rolling checksum of zsync (after rsync): over a window x[0..n-1],
// a = sum of x[i] and b = sum of (n-i)·x[i], both modulo 2^16. The 32-bit
// value is a<<16 | b; a control file stores its low RsumBytes bytes.

// rsum computes the rolling checksum of the window p. b is the sum of the
// running sums of a (rsync's s2 += s1), eight bytes a step: the sums wrap
// modulo 2^32, which keeps them right modulo 2^16. A step reads the eight
// bytes as one word and splits it into its even and odd bytes, four 16-bit
// lanes each; one multiplication then sums a word's lanes, weighted or not,
// into its top lane (the lower lanes' partial sums stay under 2^16, so
// nothing carries into it).
func rsum(p []byte) (a, b uint16) {
	const (
		lanes = 0x00ff00ff00ff00ff
		ones  = 0x0001000100010001
		even  = 2 | 4<<16 | 6<<32 | 8<<48 // weights of bytes 6, 4, 2, 0
		odd   = 1 | 3<<16 | 5<<32 | 7<<48 // of bytes 7, 5, 3, 1
	)
	var s1, s2 uint64
	for len(p) >= 8 {
		w := binary.LittleEndian.Uint64(p)
		e, o := w&lanes, w>>8&lanes
		s2 += 8*s1 + (e*even+o*odd)>>48
		s1 += ((e + o) * ones) >> 48
		p = p[8:]
	}
	for _, x := range p {
		s1 += uint64(x)
		s2 += s1
	}
	return uint16(s1), uint16(s2)
}

// rsumPadded is the rsum of block p zero-padded to bs bytes: zeros add
// nothing to a, and each of p's bytes weighs bs-len(p) more in b.
func rsumPadded(p []byte, bs int) (a, b uint16) {
	a, b = rsum(p)
	return a, b + uint16(bs-len(p))*a
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
