package patch

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

const blockSize = 256 << 10

// source reads the base through a direct-mapped cache of fixed-size blocks,
// so random access by decoders and the encoder's matcher costs at most
// cacheSize bytes of memory, however large the base.
type source struct {
	r      io.ReaderAt
	size   int64
	blocks []block
}

type block struct {
	no   int64 // block number + 1; 0 means empty
	data []byte
}

func newSource(r io.ReaderAt, size int64, cacheSize int) *source {
	slots := max(1, cacheSize/blockSize)
	if need := (size + blockSize - 1) / blockSize; need < int64(slots) {
		slots = int(max(need, 1))
	}
	return &source{r: r, size: size, blocks: make([]block, slots)}
}

// span returns up to n bytes of the base starting at off; fewer at a block
// boundary. It fails if off is outside the base.
func (s *source) span(off int64, n int) ([]byte, error) {
	if off < 0 || off >= s.size {
		return nil, fmt.Errorf("read base at %d: outside its %d bytes", off, s.size)
	}
	no := off / blockSize
	b := &s.blocks[no%int64(len(s.blocks))]
	if b.no != no+1 {
		if err := s.load(b, no); err != nil {
			return nil, err
		}
	}
	p := b.data[off-no*blockSize:]
	return p[:min(n, len(p))], nil
}

func (s *source) load(b *block, no int64) error {
	start := no * blockSize
	n := int(min(blockSize, s.size-start))
	if cap(b.data) < n {
		b.data = make([]byte, n)
	}
	b.data = b.data[:n]
	b.no = 0
	m, err := s.r.ReadAt(b.data, start)
	if m == n {
		err = nil
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("read base at %d: %w", start, err)
	}
	b.no = no + 1
	return nil
}

// appendRange appends n bytes of the base starting at off to dst. Long
// ranges are read straight into dst, bypassing the cache.
func (s *source) appendRange(dst []byte, off int64, n int) ([]byte, error) {
	if n >= 2*blockSize && off >= 0 && int64(n) <= s.size-off {
		start := len(dst)
		dst = slices.Grow(dst, n)[:start+n] // no zeroing: ReadAt fills it
		if k, err := s.r.ReadAt(dst[start:], off); k < n {
			return dst[:start], fmt.Errorf("read base at %d: %w", off, err)
		}
		return dst, nil
	}
	for n > 0 {
		p, err := s.span(off, n)
		if err != nil {
			return dst, err
		}
		dst = append(dst, p...)
		off += int64(len(p))
		n -= len(p)
	}
	return dst, nil
}

// matchForward returns how many leading bytes of t equal the base from off.
func (s *source) matchForward(off int64, t []byte) int {
	done := 0
	for done < len(t) && off < s.size {
		p, err := s.span(off, len(t)-done)
		if err != nil {
			return done
		}
		k := commonPrefix(p, t[done:])
		done += k
		if k < len(p) {
			return done
		}
		off += int64(k)
	}
	return done
}

// matchBackward returns how many trailing bytes of t equal the base just
// before end.
func (s *source) matchBackward(end int64, t []byte) int {
	n := 0
	for n < len(t) && end-int64(n) > 0 {
		off := end - int64(n) - 1
		p, err := s.span(off, 1)
		if err != nil || p[0] != t[len(t)-1-n] {
			return n
		}
		n++
	}
	return n
}
