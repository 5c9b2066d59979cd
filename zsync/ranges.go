package zsync

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"io"
)

// Range is a half-open byte range [Start, End) of the target.
type Range struct{ Start, End int64 }

// Len returns the number of bytes in r.
func (r Range) Len() int64 { return r.End - r.Start }

// Missing returns the byte ranges of the blocks not yet written, runs of
// adjacent blocks joined into one range.
func (m *Matcher) Missing() []Range {
	var out []Range
	bs := int64(m.c.Blocksize)
	looked := m.have.runs(func(i, j int) {
		out = append(out, Range{int64(i) * bs, min(int64(j)*bs, m.c.Length)})
	})
	m.mu.Lock()
	m.Looked += looked
	m.mu.Unlock()
	return out
}

// MissingBytes returns the number of target bytes not yet written.
func (m *Matcher) MissingBytes() int64 {
	return m.c.Length - m.FromSeed - m.Fetched
}

// Coalesce joins ranges separated by at most gap bytes, trading a few bytes
// already present for fewer ranges to ask for. The ranges must be sorted.
func Coalesce(rs []Range, gap int64) []Range {
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && r.Start-out[n-1].End <= gap {
			out[n-1].End = max(out[n-1].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Verify reads the assembled target from r and checks its length and its
// SHA-1 against the control file.
func (c *Control) Verify(r io.Reader) error {
	h := sha1.New()
	n, err := io.Copy(h, io.LimitReader(r, c.Length+1))
	if err != nil {
		return fmt.Errorf("zsync: reading the assembled file: %w", err)
	}
	if n != c.Length {
		return fmt.Errorf("zsync: assembled file has %d bytes, want %d: %w", n, c.Length, ErrMismatch)
	}
	return c.CheckSHA1(h.Sum(nil))
}

// CheckSHA1 compares the SHA-1 of the assembled target, computed by the
// caller (along with other digests, in one pass), with the control file's.
func (c *Control) CheckSHA1(sum []byte) error {
	if !bytes.Equal(sum, c.SHA1[:]) {
		return fmt.Errorf("zsync: assembled file SHA-1 mismatch: want %x, got %x: %w", c.SHA1, sum, ErrMismatch)
	}
	return nil
}

// Done writes the blocks still gathered and checks that none is missing.
func (m *Matcher) Done() error {
	if err := m.Flush(); err != nil {
		return err
	}
	if !m.Complete() {
		return fmt.Errorf("zsync: %d of %d blocks are still missing", int64(m.have.n)-m.have.count.Load(), m.have.n)
	}
	return nil
}

// Finish checks that every block has been written and that the assembled
// target, read back from r, has the length and SHA-1 of the control file.
func (m *Matcher) Finish(r io.ReaderAt) error {
	if err := m.Done(); err != nil {
		return err
	}
	return m.c.Verify(io.NewSectionReader(r, 0, m.c.Length+1))
}
