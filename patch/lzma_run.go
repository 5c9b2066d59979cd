package patch

// rangeDecoder is LZMA's binary range decoder over one chunk's input,
// followed by lzmaPad zero bytes so that the hot path tests no length: one
// literal or match reads at most lzmaPad bytes, and the decoder checks
// after each that i has not gone past the input.
type rangeDecoder struct {
	rng, code uint32
	in        []byte
	i         int
}

// lzmaPad is more than the bytes one literal or match can read: at most
// one per bit decoded, and a match decodes fewer than 64 bits.
const lzmaPad = 128

var lzmaZeros [lzmaPad]byte

func (r *rangeDecoder) normalize() {
	r.rng <<= 8
	r.code = r.code<<8 | uint32(r.in[r.i])
	r.i++
}

// bit decodes one bit with adaptive probability *p.
func (r *rangeDecoder) bit(p *uint16) uint32 {
	if r.rng < 1<<24 {
		r.normalize()
	}
	bound := (r.rng >> 11) * uint32(*p)
	if r.code < bound {
		r.rng = bound
		*p += (2048 - *p) >> 5
		return 0
	}
	r.rng -= bound
	r.code -= bound
	*p -= *p >> 5
	return 1
}

// tree decodes a bits-bit value, most significant bit first.
func (r *rangeDecoder) tree(p []uint16, bits uint) uint32 {
	sym := uint32(1)
	for range bits {
		sym = sym<<1 | r.bit(&p[sym])
	}
	return sym - 1<<bits
}

// reverse decodes a bits-bit value, least significant bit first, with the
// probabilities at p[off+1], p[off+2], ... (off may be -1).
func (r *rangeDecoder) reverse(p []uint16, off int, bits uint) uint32 {
	sym, v := uint32(1), uint32(0)
	for i := range bits {
		b := r.bit(&p[off+int(sym)])
		sym = sym<<1 | b
		v |= b << i
	}
	return v
}

// literal decodes a byte with its context's probabilities. It is bit()
// eight times with the decoder's state in locals, the hottest loop.
func (r *rangeDecoder) literal(probs *[lzmaLiteralSize]uint16) uint32 {
	rng, code, in, i := r.rng, r.code, r.in, r.i
	sym := uint32(1)
	for sym < 0x100 {
		if rng < 1<<24 {
			rng, code, i = rng<<8, code<<8|uint32(in[i]), i+1
		}
		p := &probs[sym]
		if bound := (rng >> 11) * uint32(*p); code < bound {
			rng, sym = bound, sym<<1
			*p += (2048 - *p) >> 5
		} else {
			rng, code, sym = rng-bound, code-bound, sym<<1|1
			*p -= *p >> 5
		}
	}
	r.rng, r.code, r.i = rng, code, i
	return sym
}

// matchedLiteral decodes a byte after a match, whose probabilities depend
// on the bits of match, the byte at the last distance, until the first
// bit that differs.
func (r *rangeDecoder) matchedLiteral(probs *[lzmaLiteralSize]uint16, match uint32) uint32 {
	rng, code, in, i := r.rng, r.code, r.in, r.i
	sym, offs, mb := uint32(1), uint32(0x100), match<<1
	for sym < 0x100 {
		if rng < 1<<24 {
			rng, code, i = rng<<8, code<<8|uint32(in[i]), i+1
		}
		mbit := mb & offs
		mb <<= 1
		p := &probs[offs+mbit+sym]
		if bound := (rng >> 11) * uint32(*p); code < bound {
			rng, sym = bound, sym<<1
			offs &^= mbit
			*p += (2048 - *p) >> 5
		} else {
			rng, code, sym = rng-bound, code-bound, sym<<1|1
			offs = mbit
			*p -= *p >> 5
		}
	}
	r.rng, r.code, r.i = rng, code, i
	return sym
}

// direct decodes bits bits of equal probability.
func (r *rangeDecoder) direct(bits uint) uint32 {
	v := uint32(0)
	for range bits {
		if r.rng < 1<<24 {
			r.normalize()
		}
		r.rng >>= 1
		b := uint32(0)
		if r.code >= r.rng {
			r.code -= r.rng
			b = 1
		}
		v = v<<1 | b
	}
	return v
}

// length decodes a match length.
func (r *rangeDecoder) length(l *lzmaLen, ps uint32) int {
	if r.bit(&l.choice) == 0 {
		return lzmaMatchMin + int(r.tree(l.low[ps][:], 3))
	}
	if r.bit(&l.choice2) == 0 {
		return lzmaMatchMin + lzmaLenLow + int(r.tree(l.mid[ps][:], 3))
	}
	return lzmaMatchMin + lzmaLenLow + lzmaLenMid + int(r.tree(l.high[:], 8))
}

// distance decodes the distance (less one) of a match of length l.
func (r *rangeDecoder) distance(p *lzmaProbs, l int) uint32 {
	slot := r.tree(p.distSlot[min(l-lzmaMatchMin, lzmaDistStates-1)][:], 6)
	if slot < 4 {
		return slot
	}
	limit := uint(slot>>1 - 1)
	d := (2 | slot&1) << limit
	if slot < lzmaDistModel {
		return d + r.reverse(p.distSpec[:], int(d)-int(slot)-1, limit)
	}
	d += r.direct(limit-lzmaAlignBits) << lzmaAlignBits
	return d + r.reverse(p.align[:], 0, lzmaAlignBits)
}

// run decodes one LZMA chunk of exactly len(dst) bytes from in.
func (z *lzma2) run(in, dst []byte) error {
	if len(in) < 5 || in[0] != 0 {
		return corruptf("lzma2: chunk input does not start a range coder")
	}
	z.padded = append(append(z.padded[:0], in...), lzmaZeros[:]...)
	r := rangeDecoder{rng: 0xffffffff, in: z.padded, i: 5,
		code: uint32(in[1])<<24 | uint32(in[2])<<16 | uint32(in[3])<<8 | uint32(in[4])}
	z.grow(len(dst))
	if err := z.lzma(&r, len(in), dst); err != nil {
		return err
	}
	if r.rng < 1<<24 {
		r.normalize()
	}
	if r.i != len(in) || r.code != 0 {
		return corruptf("lzma2: chunk of %d bytes ends at %d with code %#x", len(in), r.i, r.code)
	}
	return nil
}

// lzma decodes len(dst) bytes into the dictionary and copies them to dst
// each time the dictionary wraps and at the end: a chunk may be larger
// than the dictionary.
func (z *lzma2) lzma(r *rangeDecoder, inLen int, dst []byte) error {
	p, dict, size := &z.p, z.dict, z.dictSize
	pos, full, total := z.pos, z.full, z.total
	n, done, mark := len(dst), 0, pos // dict[mark:pos] is not in dst[:done] yet
	state, rep0, rep1, rep2, rep3 := z.state, z.rep[0], z.rep[1], z.rep[2], z.rep[3]
	pbMask, lpMask, lc := uint32(1)<<z.pb-1, uint32(1)<<z.lp-1, z.lc
	// After an error the stream is not decoded further: nothing is saved.
	for n > 0 {
		if r.i > inLen {
			return corruptf("lzma2: chunk's %d bytes end inside a symbol", inLen)
		}
		ps := uint32(total) & pbMask
		if r.bit(&p.isMatch[state][ps]) == 0 {
			prev := uint32(0)
			if full > 0 {
				prev = uint32(dict[back(pos, 0, size)])
			}
			k := ((uint32(total)&lpMask)<<lc + prev>>(8-lc)) * lzmaLiteralSize
			probs := (*[lzmaLiteralSize]uint16)(z.lit[k : k+lzmaLiteralSize])
			var sym uint32
			if state < 7 {
				sym = r.literal(probs)
			} else {
				if int(rep0) >= full {
					return corruptf("lzma2: literal matched at distance %d, %d bytes decoded", rep0+1, full)
				}
				sym = r.matchedLiteral(probs, uint32(dict[back(pos, rep0, size)]))
			}
			dict[pos] = byte(sym)
			if pos++; pos == size {
				done, pos, mark = done+copy(dst[done:], dict[mark:]), 0, 0
			}
			full, total, n = min(full+1, size), total+1, n-1
			state = lzmaLiteralNext[state]
			continue
		}
		var l int
		switch {
		case r.bit(&p.isRep[state]) == 0:
			state = lzmaMatchNext[state]
			rep3, rep2, rep1 = rep2, rep1, rep0
			l = r.length(&p.matchLen, ps)
			rep0 = r.distance(p, l)
		case r.bit(&p.isRep0[state]) == 0:
			if r.bit(&p.isRep0Long[state][ps]) == 0 {
				state, l = lzmaShortRepNext[state], 1
				break
			}
			state = lzmaRepNext[state]
			l = r.length(&p.repLen, ps)
		default:
			var d uint32
			if r.bit(&p.isRep1[state]) == 0 {
				d = rep1
			} else {
				if r.bit(&p.isRep2[state]) == 0 {
					d = rep2
				} else {
					d, rep3 = rep3, rep2
				}
				rep2 = rep1
			}
			rep1, rep0 = rep0, d
			state = lzmaRepNext[state]
			l = r.length(&p.repLen, ps)
		}
		if int(rep0) >= full {
			return corruptf("lzma2: match at distance %d, %d bytes decoded", uint64(rep0)+1, full)
		}
		if l > n {
			return corruptf("lzma2: match of %d bytes runs past the chunk's %d", l, n)
		}
		from := back(pos, rep0, size)
		if int(rep0) >= l && pos+l <= size && from+l <= size {
			copy(dict[pos:pos+l], dict[from:from+l])
			if pos += l; pos == size {
				done, pos, mark = done+copy(dst[done:], dict[mark:]), 0, 0
			}
		} else {
			for range l {
				dict[pos] = dict[from]
				if pos++; pos == size {
					done, pos, mark = done+copy(dst[done:], dict[mark:]), 0, 0
				}
				if from++; from == size {
					from = 0
				}
			}
		}
		full, total, n = min(full+l, size), total+l, n-l
	}
	copy(dst[done:], dict[mark:pos])
	z.pos, z.full, z.total = pos, full, total
	z.state, z.rep = state, [4]uint32{rep0, rep1, rep2, rep3}
	return nil
}

// back returns where the byte dist+1 before pos is in a dictionary of size
// bytes.
func back(pos int, dist uint32, size int) int {
	if i := pos - int(dist) - 1; i >= 0 {
		return i
	}
	return pos - int(dist) - 1 + size
}

// State transitions after a literal, a match, a repeated match and a
// one-byte repeat (short rep).
var (
	lzmaLiteralNext  = [lzmaStates]int{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}
	lzmaMatchNext    = [lzmaStates]int{7, 7, 7, 7, 7, 7, 7, 10, 10, 10, 10, 10}
	lzmaRepNext      = [lzmaStates]int{8, 8, 8, 8, 8, 8, 8, 11, 11, 11, 11, 11}
	lzmaShortRepNext = [lzmaStates]int{9, 9, 9, 9, 9, 9, 9, 11, 11, 11, 11, 11}
)
