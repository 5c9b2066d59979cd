package patch

import (
	"fmt"
)

// Delta_Indicator bits (RFC 3284 §4.3): which sections of a window are
// compressed with the secondary compressor named in the file header.
const (
	vcdDataComp = 0x01
	vcdInstComp = 0x02
	vcdAddrComp = 0x04
)

// xdelta3's private secondary compressor IDs (xdelta3.h).
const (
	secDJW  = 1
	secLZMA = 2
	secFGK  = 16
)

// secondaryNames are xdelta3's private secondary compressor IDs.
var secondaryNames = map[byte]string{secDJW: "djw", secLZMA: "lzma", secFGK: "fgk"}

// sectionDecoder expands one compressed section of a window. xdelta3 keeps
// one decoder per kind of section (data, instructions, addresses) for the
// whole delta, so a decoder may carry state from window to window.
type sectionDecoder interface {
	// decode decompresses all of src into exactly len(dst) bytes.
	decode(src, dst []byte) error
}

// secondary expands the compressed sections of every window of a delta.
type secondary struct {
	id   byte
	name string
	dec  [3]sectionDecoder // data, instructions, addresses; made on first use
	buf  [3][]byte
}

// newSecondary returns the expander for compressor id, or an error naming
// an unknown one.
func newSecondary(id byte) (*secondary, error) {
	name, ok := secondaryNames[id]
	if !ok {
		return nil, fmt.Errorf("%w: secondary compressor ID %d (known: 1 djw, 2 lzma, 16 fgk)", ErrUnsupported, id)
	}
	return &secondary{id: id, name: name}, nil
}

func (s *secondary) newDecoder() sectionDecoder {
	switch s.id {
	case secLZMA:
		return &lzmaSection{}
	case secDJW:
		return djwSection{}
	}
	return &fgkSection{}
}

// expand replaces each section of w that dind marks compressed by its
// decompressed bytes. Each compressed section starts with its decompressed
// size (xdelta3-second.h), which must not be zero and is checked before
// anything is allocated: every instruction makes at least one byte, so the
// data section is at most the target window, the instructions (a code and
// at most one 5-byte size per byte made) at most 6 times it, the addresses
// (at most 5 bytes per COPY) 5 times it, and none more than limit.
func (s *secondary) expand(w *window, dind byte, limit int) error {
	secs := [3]*section{&w.data, &w.inst, &w.addr}
	for i, bit := range [3]byte{vcdDataComp, vcdInstComp, vcdAddrComp} {
		if dind&bit == 0 {
			continue
		}
		sec := secs[i]
		n, err := sec.size(min(limit, [3]int{1, 6, 5}[i]*w.tgtLen))
		if err != nil {
			return fmt.Errorf("%s %s section size: %w", s.name, sec.name, err)
		}
		if n == 0 {
			return corruptf("%s %s section: decompressed size 0", s.name, sec.name)
		}
		if cap(s.buf[i]) < n {
			s.buf[i] = make([]byte, n)
		}
		if s.dec[i] == nil {
			s.dec[i] = s.newDecoder()
		}
		out := s.buf[i][:n]
		if err := s.dec[i].decode(sec.b[sec.pos:], out); err != nil {
			return fmt.Errorf("%s %s section: %w", s.name, sec.name, err)
		}
		*sec = section{b: out, name: sec.name}
	}
	return nil
}
