package zsync

import (
	"errors"
	"fmt"
	"io"
)

// seedBuf is the minimum read buffer of a seed scan.
const seedBuf = 256 << 10

// scanner walks one seed with the rolling checksum at every offset. It
// holds a buffer of a few blocks; past the seed's end it sees zeros, as a
// short last block is zero-padded in the control file.
type scanner struct {
	m    *Matcher
	r    io.Reader
	buf  []byte
	pos  int // offset in buf of the window
	n    int // bytes valid in buf (zeros included after EOF)
	end  int // offset in buf where the seed ends, once eof
	eof  bool
	win  int // bytes looked at from pos: Blocksize × SeqMatches
	bs   int
	a, b [2]uint16 // rsums of the window's first and second block
	hint int       // block expected at pos after a match, or -1
	md1  [md4Size]byte
	md2  [md4Size]byte
}

// Seed looks for the target's blocks in one seed and writes those it
// finds; call it for each seed file. It stops early once every block is
// there.
func (m *Matcher) Seed(r io.Reader) error {
	if m.Complete() {
		return nil
	}
	bs := m.c.Blocksize
	s := &scanner{m: m, r: r, bs: bs, win: bs * m.c.SeqMatches, hint: -1}
	s.buf = make([]byte, max(2*(s.win+1), seedBuf))
	err := s.run()
	if ferr := m.Flush(); err == nil {
		err = ferr
	}
	return err
}

func (s *scanner) run() error {
	fresh := true
	for !s.m.Complete() {
		if err := s.fill(); err != nil {
			return err
		}
		if s.eof && s.pos >= s.end {
			return nil
		}
		if fresh {
			s.recompute()
		}
		step, err := s.try()
		if err != nil {
			return err
		}
		if step > 0 {
			s.pos += step
			fresh = true
			continue
		}
		s.roll()
		s.pos++
		fresh = false
	}
	return nil
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
			s.buf = append(s.buf[:s.n], make([]byte, need)...)
		}
		s.buf = s.buf[:max(len(s.buf), s.n+need)]
		clear(s.buf[s.n : s.n+need])
		s.n += need
	}
	return nil
}

func (s *scanner) recompute() {
	for k := 0; k < s.m.c.SeqMatches; k++ {
		s.a[k], s.b[k] = rsum(s.buf[s.pos+k*s.bs : s.pos+(k+1)*s.bs])
	}
}

func (s *scanner) roll() {
	n := uint16(s.bs)
	for k := 0; k < s.m.c.SeqMatches; k++ {
		p := s.pos + k*s.bs
		s.a[k], s.b[k] = roll(s.a[k], s.b[k], s.buf[p], s.buf[p+s.bs], n)
	}
}

// try looks for blocks matching the window at pos and writes them; it
// returns how far to jump on (0: no match here).
func (s *scanner) try() (int, error) {
	m := s.m
	w1 := s.buf[s.pos : s.pos+s.bs]
	sum1, sum2 := s.md1[:0], s.md2[:0] // the windows' MD4s, once computed
	key1 := join(s.a[0], s.b[0]) & m.mask
	if h := s.hint; h >= 0 && h < len(m.have) && !m.have[h] && m.c.Rsums[h] == key1 && m.strong(h, w1, &sum1) {
		s.hint = h + 1 // the block after the last match goes on
		return s.bs, m.take(h, w1, &m.FromSeed)
	}
	s.hint = -1
	jump := 0
	lo, hi := m.idx.lookup(key1)
	for p := lo; p < hi; p = m.idx.live(p + 1) {
		m.Probed++
		i := int(m.idx.sorted[p])
		pair := m.c.SeqMatches == 2 && i+1 < len(m.have)
		if pair && join(s.a[1], s.b[1])&m.mask != m.c.Rsums[i+1] {
			continue
		}
		if !m.strong(i, w1, &sum1) {
			continue
		}
		w2 := s.buf[s.pos+s.bs : s.pos+2*s.bs]
		if pair && !m.strong(i+1, w2, &sum2) {
			continue
		}
		if err := m.take(i, w1, &m.FromSeed); err != nil {
			return 0, err
		}
		if pair {
			if err := m.take(i+1, w2, &m.FromSeed); err != nil {
				return 0, err
			}
		}
		if jump == 0 { // go on from the first match found here
			jump, s.hint = s.bs, i+1
			if pair {
				jump, s.hint = 2*s.bs, i+2
			}
		}
	}
	return jump, nil
}
