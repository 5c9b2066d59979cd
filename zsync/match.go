package zsync

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

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

	FromSeed int64 // target bytes found in seeds and written
	Fetched  int64 // target bytes written by Fetched
	Tested   int64 // windows whose MD4 was computed: the matcher's work
}

// NewMatcher prepares to rebuild c's target into out.
func NewMatcher(c *Control, out io.WriterAt) *Matcher {
	return &Matcher{c: c, idx: newIndex(c.Rsums), out: out, have: make([]bool, c.Blocks()), mask: rsumMask(c.RsumBytes)}
}

// Complete reports whether every block of the target has been written.
func (m *Matcher) Complete() bool { return m.nhave == len(m.have) }

// take writes block i from window w (Blocksize bytes, zero-padded past the
// target's end) unless it is already there, and counts it in *count.
func (m *Matcher) take(i int, w []byte, count *int64) error {
	if m.have[i] {
		return nil
	}
	n := m.c.blockLen(i)
	if _, err := m.out.WriteAt(w[:n], int64(i)*int64(m.c.Blocksize)); err != nil {
		return fmt.Errorf("zsync: writing block %d: %w", i, err)
	}
	m.have[i] = true
	m.nhave++
	*count += int64(n)
	return nil
}

// strong reports whether the MD4 of window w matches block i's checksum.
func (m *Matcher) strong(i int, w []byte, sum *[]byte) bool {
	if *sum == nil {
		m.Tested++
		h := newMD4()
		h.Write(w)
		*sum = h.Sum(nil)
	}
	return bytes.Equal((*sum)[:m.c.ChecksumBytes], m.c.checksum(i))
}

// WriteFetched writes target bytes fetched from the origin at offset off, which
// must start a block; each whole block is checked against its MD4 and rsum
// first, so a wrong range is refused before it is written.
func (m *Matcher) WriteFetched(off int64, r io.Reader) (int64, error) {
	bs := int64(m.c.Blocksize)
	if off%bs != 0 || off < 0 || off > m.c.Length {
		return 0, fmt.Errorf("zsync: fetched range at %d: want an offset at a block boundary within %d bytes", off, m.c.Length)
	}
	block := make([]byte, bs)
	var done int64
	for i := int(off / bs); i < len(m.have); i++ {
		n := m.c.blockLen(i)
		k, err := io.ReadFull(r, block[:n])
		if k == 0 && (errors.Is(err, io.EOF)) {
			return done, nil
		}
		if err != nil {
			return done, fmt.Errorf("zsync: fetched block %d: want %d bytes, got %d: %w", i, n, k, err)
		}
		clear(block[n:])
		a, b := rsum(block)
		var sum []byte
		if join(a, b)&m.mask != m.c.Rsums[i] || !m.strong(i, block, &sum) {
			return done, fmt.Errorf("zsync: fetched block %d (bytes %d-%d) does not match its checksums in the control file", i, int64(i)*bs, int64(i)*bs+int64(n)-1)
		}
		if err := m.take(i, block, &m.Fetched); err != nil {
			return done, err
		}
		done += int64(n)
	}
	if k, _ := r.Read(block[:1]); k > 0 {
		return done, fmt.Errorf("zsync: fetched range at %d runs past the target's %d bytes", off, m.c.Length)
	}
	return done, nil
}
