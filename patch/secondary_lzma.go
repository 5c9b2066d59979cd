package patch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// xdelta3's LZMA secondary compressor (xdelta3-lzma.h) runs one liblzma xz
// stream encoder per kind of section for the whole delta: LZMA2 filter,
// preset = the -N level, check NONE, and a LZMA_SYNC_FLUSH after every
// section it compresses. The stream is never finished. So the first
// compressed section of each kind holds the xz stream header, the block
// header and LZMA2 chunks; every later one holds only further LZMA2 chunks
// of the same block, whose matches may reach back into earlier windows.
// The xz headers are parsed here so that the dictionary size they declare
// can be bounded before it is allocated; the LZMA2 chunks are decoded by
// lzma2 (lzma.go), whose dictionary and state last from section to
// section. (github.com/ulikunitz/xz/lzma decoded them before; at about
// half liblzma's speed, it now only checks lzma2 in the tests.)

// maxLZMADict bounds the LZMA2 dictionary allocated for a stream: liblzma's
// largest preset (-9) uses 64 MiB. A stream declaring a larger dictionary
// is decoded with 64 MiB and fails cleanly if a match reaches further.
const maxLZMADict = 64 << 20

// lzmaMinDict is the smallest dictionary allocated, as liblzma's.
const lzmaMinDict = 4 << 10

var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0}

// lzmaSection decodes one kind of section of every window.
type lzmaSection struct {
	z *lzma2
}

func (s *lzmaSection) decode(src, buf []byte, n int) ([]byte, error) {
	if s.z == nil {
		in := section{b: src, name: "xz headers"}
		dict, err := readXZHeaders(&in)
		if err != nil {
			return nil, err
		}
		s.z, src = newLZMA2(min(max(dict, lzmaMinDict), maxLZMADict)), in.b[in.pos:]
	}
	return s.z.decode(src, buf, n)
}

// readXZHeaders reads the xz stream header and the block header that must
// follow it, and returns the LZMA2 dictionary size the block declares.
func readXZHeaders(in *section) (int, error) {
	h, err := in.take(12)
	if err != nil {
		return 0, fmt.Errorf("xz stream header: %w", err)
	}
	if !bytes.Equal(h[:6], xzMagic) {
		return 0, corruptf("xz stream header: want magic fd377a585a00, got %x", h[:6])
	}
	if h[6] != 0 || h[7]&0xf0 != 0 {
		return 0, corruptf("xz stream header: bad flags %x", h[6:8])
	}
	if got, want := crc32.ChecksumIEEE(h[6:8]), binary.LittleEndian.Uint32(h[8:]); got != want {
		return 0, corruptf("xz stream header: crc32 %08x, want %08x", got, want)
	}
	if in.remaining() == 0 || in.b[in.pos] == 0 {
		return 0, corruptf("xz: want a block header")
	}
	hdr, err := in.take(4 * (int(in.b[in.pos]) + 1))
	if err != nil {
		return 0, fmt.Errorf("xz block header: %w", err)
	}
	body := hdr[:len(hdr)-4]
	if got, want := crc32.ChecksumIEEE(body), binary.LittleEndian.Uint32(hdr[len(body):]); got != want {
		return 0, corruptf("xz block header: crc32 %08x, want %08x", got, want)
	}
	return parseBlockFlags(body[1:])
}

// parseBlockFlags parses the block flags, optional sizes and the one LZMA2
// filter xdelta3 uses, and returns its dictionary size.
func parseBlockFlags(b []byte) (int, error) {
	f := section{b: b, name: "xz block header"}
	flags, _ := f.ReadByte()
	if flags&0x3c != 0 || flags&0x03 != 0 {
		return 0, corruptf("xz block header: flags %#02x, want one filter and no reserved bits", flags)
	}
	for _, bit := range []byte{0x40, 0x80} { // compressed, uncompressed size
		if flags&bit != 0 {
			if _, err := xzVarint(&f); err != nil {
				return 0, err
			}
		}
	}
	id, err := xzVarint(&f)
	if err != nil {
		return 0, err
	}
	n, err := xzVarint(&f)
	if err != nil {
		return 0, err
	}
	if id != 0x21 || n != 1 {
		return 0, corruptf("xz block header: filter %#x with %d property bytes, want LZMA2 (0x21) with 1", id, n)
	}
	p, _ := f.ReadByte()
	if p > 40 {
		return 0, corruptf("xz block header: LZMA2 dictionary code %d over 40", p)
	}
	for f.remaining() > 0 {
		if c, _ := f.ReadByte(); c != 0 {
			return 0, corruptf("xz block header: non-zero padding")
		}
	}
	if p == 40 {
		return int(min(math.MaxUint32, math.MaxInt)), nil // 4 GiB - 1, or an int's most on 32-bit
	}
	return (2 | int(p&1)) << (p/2 + 11), nil
}

// xzVarint reads an xz multibyte integer (little-endian base 128, at most
// 9 bytes).
func xzVarint(s *section) (uint64, error) {
	var v uint64
	for i := 0; i < 9; i++ {
		c, err := s.ReadByte()
		if err != nil {
			return 0, corruptf("xz block header: truncated integer")
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, corruptf("xz block header: overlong integer")
			}
			return v, nil
		}
	}
	return 0, corruptf("xz block header: integer over 9 bytes")
}
