package patch

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

const (
	blockSize = 64 << 10 // bytes of base a cache block holds
	cacheWays = 4        // blocks a base block may occupy (set-associative)
	probeLen  = 64       // bytes read to verify a candidate whose block is not cached
)

// source reads the base through a set-associative cache of fixed-size
// blocks (least recently used replaced), so random access by decoders and
// the encoder's matcher costs at most cacheSize bytes of memory, however
// large the base. The matcher verifies a candidate whose block is not
// cached with a short read (probe) instead of loading the block, and only
// within a budget per target window, so a base larger than the cache is
// never read once per candidate.
type source struct {
	r      io.ReaderAt
	size   int64
	blocks []block // sets of cacheWays blocks
	sets   int64
	tick   uint64
	probe  []byte
	probes int  // probes left in the current window (matcher only)
	whole  bool // the cache holds the whole base: no probes needed
	// reads and readBytes count the ReadAt calls, and compared the bytes
	// of target the matcher compared with the base, so tests bound the work.
	reads, readBytes, compared int64
}

type block struct {
	no   int64 // block number + 1; 0 means empty
	used uint64
	data []byte
}

func newSource(r io.ReaderAt, size int64, cacheSize int) *source {
	slots := max(1, cacheSize/blockSize)
	if need := (size + blockSize - 1) / blockSize; need < int64(slots) {
		slots = int(max(need, 1))
	}
	ways := min(cacheWays, slots)
	sets := (slots + ways - 1) / ways
	need := (size + blockSize - 1) / blockSize
	blocks := make([]block, sets*ways)
	if size >= hugeMin {
		// One allocation for all blocks, in huge pages; a smaller base
		// gets blocks of its size as they are loaded.
		slab := newBytes(len(blocks) * blockSize)
		for i := range blocks {
			blocks[i].data = slab[i*blockSize : i*blockSize : (i+1)*blockSize]
		}
	}
	return &source{r: r, size: size, blocks: blocks, sets: int64(sets), whole: need <= int64(sets*ways)}
}

// cached reports whether the block holding off is in the cache.
func (s *source) cached(off int64) bool {
	return s.lookup(off/blockSize) != nil
}

func (s *source) lookup(no int64) *block {
	set := s.set(no)
	for i := range set {
		if set[i].no == no+1 {
			return &set[i]
		}
	}
	return nil
}

func (s *source) set(no int64) []block {
	w := len(s.blocks) / int(s.sets)
	return s.blocks[int(no%s.sets)*w:][:w]
}

// span returns up to n bytes of the base starting at off; fewer at a block
// boundary. It fails if off is outside the base.
func (s *source) span(off int64, n int) ([]byte, error) {
	if off < 0 || off >= s.size {
		return nil, fmt.Errorf("read base at %d: outside its %d bytes", off, s.size)
	}
	no := off / blockSize
	b := s.lookup(no)
	if b == nil {
		set := s.set(no)
		b = &set[0]
		for i := range set {
			if set[i].used < b.used {
				b = &set[i]
			}
		}
		if err := s.load(b, no); err != nil {
			return nil, err
		}
	}
	s.tick++
	b.used = s.tick
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
	if err := s.readAt(b.data, start); err != nil {
		return err
	}
	b.no = no + 1
	return nil
}

func (s *source) readAt(p []byte, off int64) error {
	s.reads++
	s.readBytes += int64(len(p))
	m, err := s.r.ReadAt(p, off)
	if m == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read base at %d: %w", off, err)
}

// appendRange appends n bytes of the base starting at off to dst. Long
// ranges are read straight into dst, bypassing the cache.
func (s *source) appendRange(dst []byte, off int64, n int) ([]byte, error) {
	if n >= 2*blockSize && off >= 0 && int64(n) <= s.size-off {
		start := len(dst)
		dst = slices.Grow(dst, n)[:start+n] // no zeroing: ReadAt fills it
		if err := s.readAt(dst[start:], off); err != nil {
			return dst[:start], err
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

// verify returns how many leading bytes of t equal the base from off, like
// matchForward, but a candidate whose block is not cached is first checked
// with a short read, and only while the window's probe budget lasts (0
// once it is spent): a wrong candidate then costs probeLen bytes, not a
// block.
func (s *source) verify(off int64, t []byte) int {
	if off < 0 || off >= s.size {
		return 0
	}
	if !s.whole && !s.cached(off) {
		if s.probes <= 0 {
			return 0
		}
		s.probes--
		n := int(min(int64(min(probeLen, len(t))), s.size-off))
		if cap(s.probe) < probeLen {
			s.probe = make([]byte, probeLen)
		}
		p := s.probe[:n]
		if s.readAt(p, off) != nil {
			return 0
		}
		if k := commonPrefix(p, t); k < n || n == len(t) {
			return k
		}
	}
	return s.matchForward(off, t)
}

// verifyBack returns how many trailing bytes of t equal the base just
// before end, like matchBackward, checking an uncached block with a probe
// first as verify does.
func (s *source) verifyBack(end int64, t []byte) int {
	if len(t) == 0 || end <= 0 || end > s.size {
		return 0
	}
	if !s.whole && !s.cached(end-1) {
		if s.probes <= 0 {
			return 0
		}
		s.probes--
		n := int(min(int64(min(probeLen, len(t))), end))
		if cap(s.probe) < probeLen {
			s.probe = make([]byte, probeLen)
		}
		p := s.probe[:n]
		if s.readAt(p, end-int64(n)) != nil {
			return 0
		}
		if k := commonSuffix(t, p); k < n || n == len(t) || int64(n) == end {
			return k
		}
	}
	return s.matchBackward(end, t)
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
		s.compared += int64(k)
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
		// The block holding the byte before end-n, from its start.
		last := end - int64(n) - 1
		lo := max(last/blockSize*blockSize, end-int64(len(t)))
		p, err := s.span(lo, int(last-lo+1))
		if err != nil {
			return n
		}
		k := commonSuffix(t[:len(t)-n], p)
		s.compared += int64(k)
		n += k
		if k < len(p) {
			return n
		}
	}
	return n
}
