package zsync

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// ErrMismatch marks bytes that do not match the control file: a fetched
// block whose checksums differ, an assembled file whose SHA-1 differs.
var ErrMismatch = errors.New("does not match its checksums in the control file")

// Matcher finds, in seed files, the blocks of a control file's target and
// writes them at their place in the output; the blocks it could not find
// are the byte ranges left to fetch (Missing), which Fetched then writes.
// Its memory follows the block table and the block size, never the sizes
// of the seeds or the target. Seed scans (SeedAt runs several at once) and
// FetchWriters may run concurrently.
type Matcher struct {
	c    *Control
	idx  *index // shared by the scans, which retire in it
	out  io.WriterAt
	have *blockSet // the blocks written
	mask uint32
	stop atomic.Bool // a segment of SeedAt failed: the others stop

	mu sync.Mutex // guards the counters and g
	g  gather     // fetched blocks not yet written

	FromSeed int64 // target bytes found in seeds and written
	Fetched  int64 // target bytes written by Fetched
	Tried    int64 // windows looked up (the others a filter passed over),
	Tested   int64 // windows whose MD4 was computed: the matcher's work,
	Paired   int64 // of them, those computed with others at once,
	Probed   int64 // with the candidate blocks it looked at,
	Hashed   int64 // and the bytes MD4-hashed for them
	Starved  int64 // windows not looked up: the seed's hashing budget was spent
	Looked   int64 // words of the block record Missing read: its work
}

// NewMatcher prepares to rebuild c's target into out.
func NewMatcher(c *Control, out io.WriterAt) *Matcher {
	if c.SeqMatches == 2 && c.Blocks() < 2 {
		// Pairs need two blocks: one block is matched alone (as the last
		// block is), and the scans' windows are one block long.
		one := *c
		one.SeqMatches = 1
		c = &one
	}
	m := &Matcher{c: c, idx: newIndexBy(c.Rsums, c.blockOrder), out: out, have: newBlockSet(c.Blocks()), mask: rsumMask(c.RsumBytes)}
	m.g = m.newGather()
	return m
}

// newGather returns a write gathering for the output, its buffer no
// larger than the target.
func (m *Matcher) newGather() gather {
	return gather{out: m.out, size: int(min(writeBehind, m.c.Length))}
}

// Complete reports whether every block of the target has been written.
func (m *Matcher) Complete() bool { return m.have.count.Load() == int64(m.have.n) }

// take writes block i from w (its bytes first, zero-padded past the
// target's end or not) through g unless it is already there (taken reports it
// was not).
func (m *Matcher) take(i int, w []byte, g *gather) (taken bool, err error) {
	if !m.have.take(i) {
		return false, nil
	}
	n := m.c.blockLen(i)
	if err := g.write(w[:n], int64(i)*int64(m.c.Blocksize)); err != nil {
		return false, fmt.Errorf("zsync: writing block %d: %w", i, err)
	}
	return true, nil
}

// done reports whether block i needs no more looking for: it is written
// and, when pairs must match, so is the next.
func (m *Matcher) done(i int) bool {
	pair := m.c.SeqMatches == 2 && i+1 < m.have.n
	return m.have.has(i) && (!pair || m.have.has(i+1))
}

// Flush writes the fetched blocks still gathered; FetchWriter.Close and
// Done call it.
func (m *Matcher) Flush() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.g.flush(); err != nil {
		return fmt.Errorf("zsync: writing blocks: %w", err)
	}
	return nil
}

// gather joins runs of adjacent blocks into one WriteAt of up to
// writeBehind bytes (a block per system call costs more than finding it).
type gather struct {
	out  io.WriterAt
	buf  []byte // adjacent blocks not yet written, from off
	off  int64
	size int // the most bytes gathered: writeBehind, or the target's length
}

// writeBehind is the most bytes of adjacent blocks gathered into one write.
const writeBehind = 1 << 20

func (g *gather) write(p []byte, off int64) error {
	if len(g.buf) > 0 && (off != g.off+int64(len(g.buf)) || len(g.buf)+len(p) > g.size) {
		if err := g.flush(); err != nil {
			return err
		}
	}
	if len(p) >= g.size { // a block as large as the buffer: written as it is
		_, err := g.out.WriteAt(p, off)
		return err
	}
	if g.buf == nil {
		g.buf = makeSlice[byte](0, g.size)
	}
	if len(g.buf) == 0 {
		g.off = off
	}
	g.buf = append(g.buf, p...)
	return nil
}

func (g *gather) flush() error {
	if len(g.buf) == 0 {
		return nil
	}
	_, err := g.out.WriteAt(g.buf, g.off)
	g.buf = g.buf[:0]
	return err
}

// checksumMatches reports whether sum (an MD4) matches block i's.
// pairKey is the rsum of the block after block i, which a window's second
// block must have when pairs must match, or 1<<32 for the last block,
// which has none (it sorts after the others of its rsum).
func (c *Control) pairKey(i int) uint64 {
	if c.SeqMatches != 2 {
		return 0
	}
	if i+1 >= c.Blocks() {
		return 1 << 32
	}
	return uint64(c.Rsums[i+1])
}

// blockOrder orders the blocks of one rsum by what a window must also
// have to match them: the next block's rsum (pairs), the block's MD4, the
// next block's MD4 (pairs).
func (c *Control) blockOrder(a, b int) int {
	if r := cmp.Compare(c.pairKey(a), c.pairKey(b)); r != 0 {
		return r
	}
	if r := bytes.Compare(c.checksum(a), c.checksum(b)); r != 0 {
		return r
	}
	if c.pairKey(a) < 1<<32 && c.SeqMatches == 2 {
		return bytes.Compare(c.checksum(a+1), c.checksum(b+1))
	}
	return 0
}

func (m *Matcher) checksumMatches(i int, sum []byte) bool {
	return bytes.Equal(sum[:m.c.ChecksumBytes], m.c.checksum(i))
}
