package patch

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
)

// djwCLMTF is the initial move-to-front order of the code lengths: 0, the
// five always coded, then the fifteen optional ones.
var djwCLMTF = [...]byte{0, 4, 5, 6, 7, 8, 9, 10, 3, 11, 2, 12, 13, 1, 14, 15, 16, 17, 18, 19, 20}

// djwSection decodes DJW-coded sections; it keeps no state between them.
type djwSection struct{}

// bitReader reads xdelta3's secondary bit stream, loading bytes only when
// a bit is needed, so a fully decoded section has consumed all its bytes.
type bitReader struct {
	b    []byte
	cur  byte
	left int // bits of cur not yet read
}

func (r *bitReader) bit() (uint, error) {
	if r.left == 0 {
		if len(r.b) == 0 {
			return 0, corruptf("end of input inside a code")
		}
		r.cur, r.b, r.left = r.b[0], r.b[1:], 8
	}
	v := uint(r.cur & 1)
	r.cur >>= 1
	r.left--
	return v, nil
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

func (djwSection) decode(src, dst []byte) error {
	r := &bitReader{b: src}
	err := djwDecode(r, dst)
	switch {
	case err != nil:
	case len(r.b) != 0:
		err = corruptf("%d bytes left unused", len(r.b))
	case r.cur != 0:
		err = corruptf("non-zero bits after the last code")
	}
	if err != nil {
		return corruptf("djw: %w", err)
	}
	return nil
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
			sym, err := h.decode(r)
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
