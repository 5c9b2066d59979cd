package zsync

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"
)

// writeBehind is the most bytes of adjacent blocks gathered into one write.
const writeBehind = 1 << 20

// ErrMismatch marks bytes that do not match the control file: a fetched
// block whose checksums differ, an assembled file whose SHA-1 differs.
var ErrMismatch = errors.New("does not match its checksums in the control file")

// Matcher finds, in seed files, the blocks of a control file's target and
// writes them at their place in the output; the blocks it could not find
// are the byte ranges left to fetch (Missing), which Fetched then writes.
// Its memory follows the block table and the block size, never the sizes
// of the seeds or the target.
type Matcher struct {
	c     *Control
	idx   *index
	out   io.WriterAt
	have  []bool
	nhave int
	mask  uint32

	h *md4 // the seed scan's

	mu   sync.Mutex // guards what take changes: FetchWriters may run at once
	wbuf []byte     // adjacent blocks not yet written, from woff
	woff int64

	FromSeed int64 // target bytes found in seeds and written
	Fetched  int64 // target bytes written by Fetched
	Tested   int64 // windows whose MD4 was computed: the matcher's work,
	Probed   int64 // with the candidate blocks it looked at
}

// NewMatcher prepares to rebuild c's target into out.
func NewMatcher(c *Control, out io.WriterAt) *Matcher {
	return &Matcher{c: c, idx: newIndex(c.Rsums), out: out, have: make([]bool, c.Blocks()), mask: rsumMask(c.RsumBytes), h: &md4{}}
}

// Complete reports whether every block of the target has been written.
func (m *Matcher) Complete() bool { return m.nhave == len(m.have) }

// take writes block i from window w (Blocksize bytes, zero-padded past the
// target's end) unless it is already there, and counts it in *count.
func (m *Matcher) take(i int, w []byte, count *int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.have[i] {
		return nil
	}
	n := m.c.blockLen(i)
	if err := m.write(w[:n], int64(i)*int64(m.c.Blocksize)); err != nil {
		return fmt.Errorf("zsync: writing block %d: %w", i, err)
	}
	m.have[i] = true
	m.nhave++
	m.retireDone(i)
	if i > 0 {
		m.retireDone(i - 1)
	}
	*count += int64(n)
	return nil
}

// write gathers runs of adjacent blocks into one WriteAt of up to
// writeBehind bytes (a block per system call costs more than finding it).
func (m *Matcher) write(p []byte, off int64) error {
	if len(m.wbuf) > 0 && (off != m.woff+int64(len(m.wbuf)) || len(m.wbuf)+len(p) > writeBehind) {
		if err := m.flush(); err != nil {
			return err
		}
	}
	if m.wbuf == nil {
		m.wbuf = make([]byte, 0, max(writeBehind, len(p)))
	}
	if len(m.wbuf) == 0 {
		m.woff = off
	}
	m.wbuf = append(m.wbuf, p...)
	return nil
}

func (m *Matcher) flush() error {
	if len(m.wbuf) == 0 {
		return nil
	}
	_, err := m.out.WriteAt(m.wbuf, m.woff)
	m.wbuf = m.wbuf[:0]
	return err
}

// Flush writes the blocks still gathered; Seed, FetchWriter.Close and
// Done call it.
func (m *Matcher) Flush() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.flush(); err != nil {
		return fmt.Errorf("zsync: writing blocks at %d: %w", m.woff, err)
	}
	return nil
}

// retireDone takes block i out of the lookups once nothing is left to find
// through it: it is written and, when pairs must match, so is the next.
func (m *Matcher) retireDone(i int) {
	pair := m.c.SeqMatches == 2 && i+1 < len(m.have)
	if m.have[i] && (!pair || m.have[i+1]) {
		m.idx.retire(i)
	}
}

// strong reports whether the MD4 of window w matches block i's checksum;
// *sum keeps the window's MD4 (empty: not computed yet) for the next
// candidate. Only the seed scan calls it: m.h is its own.
func (m *Matcher) strong(i int, w []byte, sum *[]byte) bool {
	if len(*sum) == 0 {
		m.Tested++
		m.h.Reset()
		m.h.Write(w)
		*sum = m.h.Sum((*sum)[:0])
	}
	return bytes.Equal((*sum)[:m.c.ChecksumBytes], m.c.checksum(i))
}

// WriteFetched writes target bytes fetched from the origin at offset off,
// which must start a block; each block is checked against its rsum and MD4
// first, so a wrong range is refused before it is written.
func (m *Matcher) WriteFetched(off int64, r io.Reader) (int64, error) {
	fw, err := m.FetchWriter(off)
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(fw, r); err != nil {
		return fw.done, err
	}
	return fw.done, fw.Close()
}

// FetchWriter returns a writer for fetched target bytes from offset off (a
// block boundary): each block is checked against its rsum and MD4 once
// whole, then written. Close checks that no block was left half-written.
func (m *Matcher) FetchWriter(off int64) (*FetchWriter, error) {
	bs := int64(m.c.Blocksize)
	if off%bs != 0 || off < 0 || off > m.c.Length {
		return nil, fmt.Errorf("zsync: fetched range at %d: want an offset at a block boundary within %d bytes", off, m.c.Length)
	}
	return &FetchWriter{m: m, next: int(off / bs), buf: make([]byte, 0, bs)}, nil
}

// FetchWriter checks and writes fetched blocks; see Matcher.FetchWriter.
type FetchWriter struct {
	m    *Matcher
	next int    // block being filled
	buf  []byte // its bytes so far
	done int64  // bytes checked and written
	h    hash.Hash
	sum  []byte
}

func (fw *FetchWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if fw.next >= len(fw.m.have) {
			return n - len(p), fmt.Errorf("zsync: fetched bytes run past the target's %d bytes", fw.m.c.Length)
		}
		want := fw.m.c.blockLen(fw.next)
		k := copy(fw.buf[len(fw.buf):want], p)
		fw.buf = fw.buf[:len(fw.buf)+k]
		p = p[k:]
		if len(fw.buf) == want {
			if err := fw.flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// flush checks the whole block in buf and writes it.
func (fw *FetchWriter) flush() error {
	m, i := fw.m, fw.next
	n := len(fw.buf)
	block := fw.buf[:m.c.Blocksize]
	clear(block[n:])
	a, b := rsum(block)
	if join(a, b)&m.mask != m.c.Rsums[i] || !fw.md4Matches(i, block) {
		start := int64(i) * int64(m.c.Blocksize)
		return fmt.Errorf("zsync: fetched block %d (bytes %d-%d) %w", i, start, start+int64(n)-1, ErrMismatch)
	}
	if err := m.take(i, block, &m.Fetched); err != nil {
		return err
	}
	fw.done += int64(n)
	fw.next++
	fw.buf = fw.buf[:0]
	return nil
}

// md4Matches checks block i's MD4 with the writer's own hash: writers may
// run at once, and the matcher's counters are the seed scan's.
func (fw *FetchWriter) md4Matches(i int, block []byte) bool {
	if fw.h == nil {
		fw.h = newMD4()
	}
	fw.h.Reset()
	fw.h.Write(block)
	fw.sum = fw.h.Sum(fw.sum[:0])
	return bytes.Equal(fw.sum[:fw.m.c.ChecksumBytes], fw.m.c.checksum(i))
}

// Close reports a block left incomplete and writes what is gathered.
func (fw *FetchWriter) Close() error {
	if len(fw.buf) > 0 {
		return fmt.Errorf("zsync: fetched block %d: want %d bytes, got %d", fw.next, fw.m.c.blockLen(fw.next), len(fw.buf))
	}
	return fw.m.Flush()
}
