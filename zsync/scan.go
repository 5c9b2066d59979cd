package zsync

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// seedBuf is the minimum read buffer of a seed scan.
const seedBuf = 256 << 10

// hashBudget is the most bytes a scan MD4-hashes per seed byte it has
// passed (beyond a start of hashBudget windows). A window is hashed only
// when its rsum is some block's, so a control file giving its blocks the
// rsums of the seed's windows (one rsum for a zero-filled seed) made every
// seed byte cost a block's MD4, eight with pairs: seed length × block
// size, as in zsync 0.6.2. Honest matching hashes at most about four
// bytes a byte (a block pair found every two blocks, eight blocks hashed
// at once); false rsum matches of an honest control file are rare. A
// window met with the budget spent is not looked up (Starved): what is
// not found is fetched, and the budget comes back as the scan goes on.
const hashBudget = 8

// scanner walks one seed (or one segment of it) with the rolling checksum
// at every offset. It holds a buffer of a few blocks; past the seed's end
// it sees zeros, as a short last block is zero-padded in the control file.
// Its index, MD4, counters and write gathering are its own: scanners of
// one Matcher run at once, sharing only the blocks written.
type scanner struct {
	m       *Matcher
	idx     *index
	r       io.Reader
	buf     []byte
	pos     int   // offset in buf of the window
	n       int   // bytes valid in buf (zeros included after EOF)
	end     int   // offset in buf where the seed ends, once eof
	at      int64 // offset in the reader of buf[0]
	limit   int64 // windows start before this offset in the reader (-1: all)
	eof     bool
	win     int // bytes looked at from pos: Blocksize × SeqMatches
	bs      int
	a, b    [2]uint16 // rsums of the window's first and second block
	hint    int       // block expected at pos after a match, or -1
	h       md4
	md1     [md4Size]byte // MD4 of the window's first block, when ok1
	md2     [md4Size]byte // MD4 of its second block, when ok2
	ok1     bool
	ok2     bool
	ahead   [8][md4Size]byte // MD4s of aheadN blocks from offset aheadAt on
	aheadAt int64            // in the reader
	aheadN  int
	g       gather

	fromSeed, tried, tested, paired, probed, work, starved int64
}

// Seed looks for the target's blocks in one seed and writes those it
// finds; call it for each seed file. It stops early once every block is
// there.
func (m *Matcher) Seed(r io.Reader) error {
	if m.Complete() {
		return nil
	}
	return m.newScanner(r, -1, -1).scan()
}

// parallelMin is the seed size from which SeedAt splits the scan (a
// variable for tests).
var parallelMin int64 = 1 << 20

// SeedAt is Seed for a seed of size bytes read at random: with workers
// above 1 and a large seed, it scans that many segments at once (each
// reading a window's length into the next, so no offset is skipped).
func (m *Matcher) SeedAt(r io.ReaderAt, size int64, workers int) error {
	if m.Complete() {
		return nil
	}
	// A window starting before a segment's limit reads win+1 bytes; a run
	// of matching blocks may go on by one more block past it (pastLimit).
	// A segment shorter than that is not worth its own buffer of a window.
	over := int64(m.c.Blocksize*(m.c.SeqMatches+1)) + 1
	workers = int(min(int64(workers), size/over))
	if workers <= 1 || size < parallelMin {
		return m.newScanner(io.NewSectionReader(r, 0, size), -1, size).scan()
	}
	seg := (size + int64(workers) - 1) / int64(workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for k := range workers {
		start := int64(k) * seg
		if start >= size {
			break
		}
		limit, length := seg, min(seg+over, size-start)
		if start+seg >= size {
			limit = -1 // the last segment: its end is the seed's, zero-padded
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = m.newScanner(io.NewSectionReader(r, start, length), limit, length).scan()
			if errs[k] != nil {
				m.stop.Store(true) // the other segments give up too
			}
		}()
	}
	wg.Wait()
	m.stop.Store(false)
	return errors.Join(errs...)
}

// newScanner returns a scanner of r, which holds size bytes (-1: not
// known). Its buffer holds two windows, or the seed and the zeros padding
// its last window if that is less.
func (m *Matcher) newScanner(r io.Reader, limit, size int64) *scanner {
	bs := m.c.Blocksize
	s := &scanner{m: m, idx: m.idx, r: r, bs: bs, win: bs * m.c.SeqMatches, hint: -1, limit: limit}
	s.g = m.newGather()
	n := int64(max(2*(s.win+1), seedBuf))
	if size >= 0 {
		n = min(n, size+int64(s.win)+1)
	}
	s.buf = makeSlice[byte](int(n), int(n))
	return s
}

// scan runs the scanner, writes what it gathered and adds its counts.
func (s *scanner) scan() error {
	err := s.run()
	if ferr := s.g.flush(); err == nil && ferr != nil {
		err = fmt.Errorf("zsync: writing blocks: %w", ferr)
	}
	m := s.m
	m.mu.Lock()
	m.FromSeed += s.fromSeed
	m.Tried += s.tried
	m.Tested += s.tested
	m.Paired += s.paired
	m.Probed += s.probed
	m.Hashed += s.work
	m.Starved += s.starved
	m.mu.Unlock()
	return err
}

func (s *scanner) run() error {
	fresh, shift := true, false
	for !s.m.Complete() && !s.m.stop.Load() {
		if err := s.fill(); err != nil {
			return err
		}
		if s.eof && s.pos >= s.end || s.pastLimit() && (s.hint < 0 || s.at+int64(s.pos) >= s.limit+int64(s.bs)) {
			return nil
		}
		if fresh {
			s.recompute(shift)
		}
		step, err := s.try()
		if err != nil {
			return err
		}
		if step > 0 {
			s.pos += step
			// One block on, with pairs: the window's second block is the
			// next window's first, its rsum known.
			fresh, shift = true, step == s.bs && s.m.c.SeqMatches == 2
			continue
		}
		s.skip()
		fresh = false
	}
	return nil
}

// pastLimit says whether the window starts at or past the segment's
// limit, where the next segment's windows start: a run of matching blocks
// that reached it goes on by one block (its last block has no pair to be
// looked up by, in the next segment), nothing else is looked for.
func (s *scanner) pastLimit() bool { return s.limit >= 0 && s.at+int64(s.pos) >= s.limit }

// skip rolls the window on by one byte, then on past every window whose
// rsum no block has (index.maybe), while the buffer holds the next byte
// and the windows start before the seed's end and the segment's limit.
func (s *scanner) skip() {
	s.roll()
	s.pos++
	last := s.n - s.win - 1 // the last window that can roll on in buf
	if s.eof {
		last = min(last, s.end-1)
	}
	if s.limit >= 0 {
		last = int(min(int64(last), s.limit-s.at-1))
	}
	buf, bs, pos, n := s.buf, s.bs, s.pos, uint16(s.bs)
	a0, b0, a1, b1 := s.a[0], s.b[0], s.a[1], s.b[1]
	pair, mask := s.m.c.SeqMatches == 2, s.m.mask
	for pos <= last && !s.idx.maybe(join(a0, b0)&mask) {
		out, in := buf[pos], buf[pos+bs]
		a0, b0 = roll(a0, b0, out, in, n)
		if pair {
			a1, b1 = roll(a1, b1, in, buf[pos+2*bs], n)
		}
		pos++
	}
	s.pos, s.a[0], s.b[0], s.a[1], s.b[1] = pos, a0, b0, a1, b1
}

// fill makes sure win+1 bytes from pos are in the buffer, reading more or,
// at the seed's end, padding with zeros.
func (s *scanner) fill() error {
	need := s.win + 1
	if s.n-s.pos >= need {
		return nil
	}
	if s.eof {
		return nil // zeros already pad past the end
	}
	s.n = copy(s.buf, s.buf[s.pos:s.n])
	s.end -= s.pos
	s.at += int64(s.pos)
	s.pos = 0
	for s.n < len(s.buf) {
		k, err := s.r.Read(s.buf[s.n:])
		s.n += k
		if errors.Is(err, io.EOF) {
			s.eof, s.end = true, s.n
			break
		}
		if err != nil {
			return fmt.Errorf("zsync: reading a seed: %w", err)
		}
	}
	if s.eof { // pad: every window starting before the end stays whole
		if cap(s.buf) < s.n+need {
			grown := makeSlice[byte](s.n+need, s.n+need)
			copy(grown, s.buf[:s.n])
			s.buf = grown
		}
		s.buf = s.buf[:max(len(s.buf), s.n+need)]
		clear(s.buf[s.n : s.n+need])
		s.n += need
	}
	return nil
}
