package patch

// An LZMA2 decoder for xdelta3's lzma secondary sections, after the xz file
// format and LZMA specifications (xz-embedded's decoder shows the same
// rules). Each call decodes whole chunks into a dictionary that lasts from
// section to section, since later sections' matches reach back into it.
// Every size is checked before it is used: a chunk makes at most 2 MiB, a
// match may not reach past the bytes decoded since the last dictionary
// reset nor past the dictionary, and a chunk must end with its range
// coder's input used up exactly.

const (
	lzmaStates      = 12
	lzmaPosMax      = 1 << 4 // pb ≤ 4
	lzmaLenLow      = 8
	lzmaLenMid      = 8
	lzmaLenHigh     = 256
	lzmaDistStates  = 4
	lzmaDistSlots   = 64
	lzmaDistModel   = 14 // first slot whose distance has direct bits
	lzmaFullDist    = 128
	lzmaAlignBits   = 4
	lzmaMatchMin    = 2
	lzmaProbInit    = 1 << 10
	lzmaLiteralSize = 0x300
)

// lzmaLen decodes match lengths.
type lzmaLen struct {
	choice, choice2 uint16
	low, mid        [lzmaPosMax][lzmaLenLow]uint16
	high            [lzmaLenHigh]uint16
}

// lzmaProbs is every adaptive probability but the literals'.
type lzmaProbs struct {
	isMatch    [lzmaStates][lzmaPosMax]uint16
	isRep      [lzmaStates]uint16
	isRep0     [lzmaStates]uint16
	isRep1     [lzmaStates]uint16
	isRep2     [lzmaStates]uint16
	isRep0Long [lzmaStates][lzmaPosMax]uint16
	distSlot   [lzmaDistStates][lzmaDistSlots]uint16
	distSpec   [lzmaFullDist - lzmaDistModel]uint16
	align      [1 << lzmaAlignBits]uint16
	matchLen   lzmaLen
	repLen     lzmaLen
}

// lzma2 is the state of one LZMA2 stream.
type lzma2 struct {
	padded []byte // the current chunk's input, then lzmaPad zeros
	// dictionary: circular once it has reached its size
	dict      []byte
	dictSize  int
	pos       int // where the next byte goes
	full      int // bytes written since the last reset, at most dictSize
	total     int // bytes written since the last reset (positions for pb and lp)
	needReset bool
	needProps bool
	// LZMA state
	lc, lp, pb uint
	state      int
	rep        [4]uint32
	p          lzmaProbs
	lit        []uint16
	ended      bool // the end-of-stream chunk was read
}

func newLZMA2(dictSize int) *lzma2 {
	return &lzma2{dictSize: dictSize, needReset: true, needProps: true}
}

// decode decodes the chunks in src, which must make exactly n bytes and
// be used up, into buf's array when it is large enough. The output grows
// chunk by chunk as it is made, so n itself allocates nothing.
func (z *lzma2) decode(src, buf []byte, n int) ([]byte, error) {
	dst := buf[:0]
	for len(src) > 0 {
		if z.ended {
			return nil, corruptf("lzma2: %d bytes after the end of the stream", len(src))
		}
		var used int
		var err error
		if dst, used, err = z.chunk(src, dst, n); err != nil {
			return nil, err
		}
		src = src[used:]
	}
	if len(dst) != n {
		return nil, corruptf("lzma2: want %d bytes, the chunks make %d", n, len(dst))
	}
	return dst, nil
}

// chunk decodes the chunk at the start of src, appending to dst what it
// makes (dst may grow to n bytes), and returns dst and the input used.
func (z *lzma2) chunk(src, dst []byte, n int) (out []byte, used int, err error) {
	made, left := len(dst), n-len(dst)
	c := src[0]
	switch {
	case c > 0x02 && c < 0x80:
		return dst, 0, corruptf("lzma2: bad chunk control byte %#02x", c)
	case c == 0x00:
		z.ended = true
		return dst, 1, nil
	case c >= 0xe0 || c == 0x01:
		z.needProps, z.needReset = true, false
		z.full, z.total = 0, 0
	case z.needReset:
		return dst, 0, corruptf("lzma2: chunk %#02x before a dictionary reset", c)
	}
	if c < 0x80 {
		if len(src) < 3 {
			return dst, 0, corruptf("lzma2: truncated chunk header")
		}
		k := (int(src[1])<<8 | int(src[2])) + 1
		if k > len(src)-3 || k > left {
			return dst, 0, corruptf("lzma2: stored chunk of %d bytes, %d input and %d output left", k, len(src)-3, left)
		}
		z.put(src[3 : 3+k])
		dst = extend(dst, k, n)
		copy(dst[made:], src[3:3+k])
		return dst, 3 + k, nil
	}
	hdr := 5
	if c >= 0xc0 {
		hdr = 6
	}
	if len(src) < hdr {
		return dst, 0, corruptf("lzma2: truncated chunk header")
	}
	unpacked := (int(c&0x1f)<<16 | int(src[1])<<8 | int(src[2])) + 1
	packed := (int(src[3])<<8 | int(src[4])) + 1
	switch {
	case c >= 0xc0:
		if err := z.props(src[5]); err != nil {
			return dst, 0, err
		}
		z.needProps = false
		z.reset()
	case z.needProps:
		return dst, 0, corruptf("lzma2: chunk %#02x without properties after a dictionary reset", c)
	case c >= 0xa0:
		z.reset()
	}
	if unpacked > left || packed > len(src)-hdr {
		return dst, 0, corruptf("lzma2: chunk of %d bytes from %d, %d output and %d input left", unpacked, packed, left, len(src)-hdr)
	}
	dst = extend(dst, unpacked, n)
	if err := z.run(src[hdr:hdr+packed], dst[made:]); err != nil {
		return dst, 0, err
	}
	return dst, hdr + packed, nil
}

// props sets lc, lp and pb from a properties byte.
func (z *lzma2) props(b byte) error {
	if b > (4*5+4)*9+8 {
		return corruptf("lzma2: properties byte %#02x", b)
	}
	z.pb, b = uint(b/45), b%45
	z.lp, z.lc = uint(b/9), uint(b%9)
	if z.lc+z.lp > 4 {
		return corruptf("lzma2: lc %d + lp %d over 4", z.lc, z.lp)
	}
	return nil
}

// reset starts the LZMA state afresh: probabilities, state, distances.
func (z *lzma2) reset() {
	z.state, z.rep = 0, [4]uint32{}
	z.p = lzmaFresh
	n := lzmaLiteralSize << (z.lc + z.lp)
	if cap(z.lit) < n {
		z.lit = make([]uint16, n)
	}
	z.lit = z.lit[:n]
	for i := range z.lit {
		z.lit[i] = lzmaProbInit
	}
}

// put appends stored bytes to the dictionary.
func (z *lzma2) put(b []byte) {
	for len(b) > 0 {
		z.grow(len(b))
		k := copy(z.dict[z.pos:], b)
		z.advance(k)
		b = b[k:]
	}
}

// grow makes room for up to n more bytes at pos while the dictionary is
// smaller than its size, so a short stream never allocates all of it.
func (z *lzma2) grow(n int) {
	if len(z.dict) == z.dictSize || z.pos+n <= len(z.dict) {
		return
	}
	size := min(max(2*len(z.dict), z.pos+n, 1<<16), z.dictSize)
	d := reserve(size, size)
	copy(d, z.dict)
	z.dict = d
}

// advance moves pos on by k bytes written at it.
func (z *lzma2) advance(k int) {
	z.pos += k
	z.full = min(z.full+k, z.dictSize)
	z.total += k
	if z.pos == z.dictSize {
		z.pos = 0
	}
}

// lzmaFresh is every probability at its start value.
var lzmaFresh = func() (p lzmaProbs) {
	fill := func(s []uint16) {
		for i := range s {
			s[i] = lzmaProbInit
		}
	}
	for i := range lzmaStates {
		fill(p.isMatch[i][:])
		fill(p.isRep0Long[i][:])
	}
	for _, s := range [][]uint16{p.isRep[:], p.isRep0[:], p.isRep1[:], p.isRep2[:], p.distSpec[:], p.align[:]} {
		fill(s)
	}
	for i := range p.distSlot {
		fill(p.distSlot[i][:])
	}
	for _, l := range []*lzmaLen{&p.matchLen, &p.repLen} {
		l.choice, l.choice2 = lzmaProbInit, lzmaProbInit
		for i := range lzmaPosMax {
			fill(l.low[i][:])
			fill(l.mid[i][:])
		}
		fill(l.high[:])
	}
	return p
}()
