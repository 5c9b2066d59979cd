package patch

import "encoding/binary"

// xdelta3's DJW secondary compressor (xdelta3-djw.h) is a semi-static
// Huffman coder after David Wheeler's bred3: each section is coded on its
// own (nothing carries from window to window) with 1 to 8 code tables over
// the 256 byte values; with more than one, the output is cut into sectors
// of a fixed size and each sector names its table. Code lengths are
// themselves Huffman coded after move-to-front and 1-2 run coding.
//
// Bits are read from the least significant bit of each byte up; a field of
// n bits is read most significant bit first; canonical codes are assigned
// in order of length, then of symbol.

const (
	djwMaxCodeLen  = 20 // longest code of a byte value
	djwCodeLenSyms = djwMaxCodeLen + 2
	djwMaxCLCLen   = 15 // longest code of a code length
	djwMaxSelLen   = 7  // longest code of a group selector
	djwRun0        = 0
	djwRun1        = 1
	djwFastBits    = 10   // bits looked up at once by a table
	djwFastMin     = 4096 // fewest symbols for which a section builds tables
)

// djwCLMTF is the initial move-to-front order of the code lengths: 0, the
// five always coded, then the fifteen optional ones.
var djwCLMTF = [...]byte{0, 4, 5, 6, 7, 8, 9, 10, 3, 11, 2, 12, 13, 1, 14, 15, 16, 17, 18, 19, 20}

// djwSection decodes DJW-coded sections; it keeps no state between them.
type djwSection struct{}

// bitReader reads xdelta3's secondary bit stream through a 64-bit
// accumulator: acc holds n bits not yet read, the next in its lowest bit.
// A decoded section must use all its bytes, so unread() tells what is left.
type bitReader struct {
	b   []byte
	acc uint64
	n   uint
	// slow counts the symbols decoded a bit at a time (work, for tests).
	slow int
}

// refill tops the accumulator up to at least 56 bits, or to the end of
// the input. Bits above n may already hold the bytes that follow; they are
// loaded again, with the same values, when n reaches them.
func (r *bitReader) refill() {
	if len(r.b) >= 8 {
		r.acc |= binary.LittleEndian.Uint64(r.b) << r.n
		k := (63 - r.n) / 8
		r.b, r.n = r.b[k:], r.n+8*k
		return
	}
	for r.n <= 56 && len(r.b) > 0 {
		r.acc |= uint64(r.b[0]) << r.n
		r.b, r.n = r.b[1:], r.n+8
	}
}

func (r *bitReader) bit() (uint, error) {
	if r.n == 0 {
		if r.refill(); r.n == 0 {
			return 0, corruptf("end of input inside a code")
		}
	}
	v := uint(r.acc & 1)
	r.acc >>= 1
	r.n--
	return v, nil
}

// unread returns the whole bytes not yet started and the bits left of the
// byte being read.
func (r *bitReader) unread() (bytes int, rest uint64) {
	u := r.n + 8*uint(len(r.b))
	return int(u / 8), r.acc & (1<<(u%8) - 1)
}

// bits reads an n-bit field, most significant bit first.
func (r *bitReader) bits(n int) (int, error) {
	v := 0
	for range n {
		b, err := r.bit()
		if err != nil {
			return 0, err
		}
		v = v<<1 | int(b)
	}
	return v, nil
}

// huffman is a canonical prefix code decoder.
type huffman struct {
	minLen, maxLen int
	limit, base    [djwCodeLenSyms + 1]int
	sorted         []byte // symbols by code
	// fast maps the next djwFastBits bits of input (first bit lowest) to
	// symbol | length<<8 when they start with a code of at most that
	// length; 0 sends decode the slow way. Empty unless withFast was called.
	fast []uint16
}

// withFast fills the lookup table by running the bit-at-a-time decoder on
// every djwFastBits-bit pattern, so both ways decode alike, invalid codes
// included.
func (h *huffman) withFast() {
	h.fast = make([]uint16, 1<<djwFastBits)
	for p := range h.fast {
		code := 0
		for n := 1; n <= min(h.maxLen, djwFastBits); n++ {
			code = code<<1 | p>>(n-1)&1
			if n >= h.minLen && code <= h.limit[n] {
				if off := code - h.base[n]; off >= 0 && off < len(h.sorted) {
					h.fast[p] = uint16(h.sorted[off]) | uint16(n)<<8
				}
				break
			}
		}
	}
}

// next reads one symbol, through the table when it holds the code.
func (h *huffman) next(r *bitReader) (int, error) {
	if h.fast != nil {
		if r.n < djwFastBits {
			r.refill()
		}
		e := h.fast[r.acc&(1<<djwFastBits-1)]
		if l := uint(e >> 8); l != 0 && l <= r.n {
			r.acc >>= l
			r.n -= l
			return int(e & 0xff), nil
		}
	}
	r.slow++
	return h.decode(r)
}

// build makes the canonical code for the given lengths (0: unused).
func (h *huffman) build(lens []byte) {
	var count [djwCodeLenSyms + 1]int
	for _, l := range lens {
		count[l]++
	}
	h.minLen, h.maxLen = 0, 0
	for l := 1; l < len(count); l++ {
		if count[l] > 0 {
			if h.minLen == 0 {
				h.minLen = l
			}
			h.maxLen = l
		}
	}
	h.sorted = h.sorted[:0]
	if h.maxLen == 0 {
		return
	}
	var start [djwCodeLenSyms + 1]int
	code, idx := 0, 0
	for l := h.minLen; l <= h.maxLen; l++ {
		start[l] = idx
		h.base[l] = code - idx
		h.limit[l] = code + count[l] - 1
		idx += count[l]
		code = (code + count[l]) << 1
	}
	h.sorted = append(h.sorted, make([]byte, idx)...)
	for sym, l := range lens {
		if l != 0 {
			h.sorted[start[l]] = byte(sym)
			start[l]++
		}
	}
}

// decode reads one symbol.
func (h *huffman) decode(r *bitReader) (int, error) {
	code := 0
	for n := 1; n <= h.maxLen; n++ {
		b, err := r.bit()
		if err != nil {
			return 0, err
		}
		code = code<<1 | int(b)
		if n >= h.minLen && code <= h.limit[n] {
			if off := code - h.base[n]; off >= 0 && off < len(h.sorted) {
				return int(h.sorted[off]), nil
			}
			break
		}
	}
	return 0, corruptf("invalid prefix code")
}

// decode12 decodes n values coded as move-to-front indexes with runs of the
// front value in 1-2 (bijective base 2) coding. With skip > 0, a value
// whose counterpart skip places earlier is 0 is 0 and not coded.
func decode12(r *bitReader, h *huffman, mtf []byte, out []byte, skip int) error {
	rep, next, shift := 0, 0, 0
	for n := 0; n < len(out); {
		switch {
		case skip > 0 && n >= skip && out[n-skip] == 0:
			out[n] = 0
			n++
		case rep > 0:
			out[n] = mtf[0]
			n, rep = n+1, rep-1
		case next > 0:
			v := mtf[next]
			copy(mtf[1:next+1], mtf[:next])
			mtf[0] = v
			out[n], n, next = v, n+1, 0
		default:
			sym, err := h.decode(r)
			if err != nil {
				return err
			}
			if sym <= djwRun1 {
				rep = (sym + 1) << shift
				if shift++; shift > 30 {
					return corruptf("run too long")
				}
				continue
			}
			if next, shift = sym-1, 0; next >= len(mtf) {
				return corruptf("move-to-front index %d of %d", next, len(mtf))
			}
		}
	}
	if rep != 0 {
		return corruptf("run of %d values past the end", rep)
	}
	return nil
}

func (djwSection) decode(src, buf []byte, n int) ([]byte, error) {
	dst, err := prefixCoded("djw", src, buf, n)
	if err != nil {
		return nil, err
	}
	r := &bitReader{b: src}
	err = djwDecode(r, dst)
	if err == nil {
		switch unused, rest := r.unread(); {
		case unused != 0:
			err = corruptf("%d bytes left unused", unused)
		case rest != 0:
			err = corruptf("non-zero bits after the last code")
		}
	}
	if err != nil {
		return nil, corruptf("djw: %w", err)
	}
	return dst, nil
}

func djwDecode(r *bitReader, dst []byte) error {
	groups, err := r.bits(3)
	if err != nil {
		return err
	}
	groups++
	sector := len(dst)
	if groups > 1 {
		v, err := r.bits(5)
		if err != nil {
			return err
		}
		sector = (v + 1) * 5
	}
	tables, err := djwTables(r, groups)
	if err != nil {
		return err
	}
	if len(dst) >= djwFastMin {
		for i := range tables {
			tables[i].withFast()
		}
	}
	sel := make([]byte, (len(dst)+sector-1)/sector)
	if groups > 1 {
		if err := djwSelectors(r, groups, sel); err != nil {
			return err
		}
	}
	for i, g := range sel {
		if int(g) >= groups {
			return corruptf("sector %d selects table %d of %d", i, g, groups)
		}
		h := &tables[g]
		for j := i * sector; j < min(len(dst), (i+1)*sector); j++ {
			sym, err := h.next(r)
			if err != nil {
				return err
			}
			dst[j] = byte(sym)
		}
	}
	return nil
}

// djwTables reads the code-length code and the code lengths of each table.
func djwTables(r *bitReader, groups int) ([]huffman, error) {
	extra, err := r.bits(4)
	if err != nil {
		return nil, err
	}
	clLens := make([]byte, djwCodeLenSyms)
	for i := range extra + 7 {
		v, err := r.bits(4)
		if err != nil {
			return nil, err
		}
		clLens[i] = byte(v)
	}
	var cl huffman
	cl.build(clLens)
	lens := make([]byte, 256*groups)
	mtf := djwCLMTF
	if err := decode12(r, &cl, mtf[:], lens, 256); err != nil {
		return nil, err
	}
	tables := make([]huffman, groups)
	for g := range tables {
		tables[g].build(lens[g*256 : (g+1)*256])
	}
	return tables, nil
}

// djwSelectors reads which table each sector uses.
func djwSelectors(r *bitReader, groups int, sel []byte) error {
	lens := make([]byte, groups+1)
	mtf := make([]byte, groups+1)
	for i := range lens {
		v, err := r.bits(3)
		if err != nil {
			return err
		}
		lens[i], mtf[i] = byte(v), byte(i)
	}
	var h huffman
	h.build(lens)
	return decode12(r, &h, mtf, sel, 0)
}
