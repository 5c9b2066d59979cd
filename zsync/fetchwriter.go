package zsync

import (
	"fmt"
	"hash"
	"io"
)

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
	// The buffer holds a block's bytes, no more than the target has; the
	// zeros that pad the last block are hashed, not held.
	return &FetchWriter{m: m, next: int(off / bs), buf: makeSlice[byte](0, int(min(int64(bs), m.c.Length)))}, nil
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
		if fw.next >= fw.m.have.n {
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
	block := fw.buf
	a, b := rsumPadded(block, m.c.Blocksize)
	if join(a, b)&m.mask != m.c.Rsums[i] || !fw.md4Matches(i, block) {
		start := int64(i) * int64(m.c.Blocksize)
		return fmt.Errorf("zsync: fetched block %d (bytes %d-%d) %w", i, start, start+int64(n)-1, ErrMismatch)
	}
	m.mu.Lock()
	taken, err := m.take(i, block, &m.g)
	if taken {
		m.Fetched += int64(n)
	}
	m.mu.Unlock()
	if err != nil {
		return err
	}
	fw.done += int64(n)
	fw.next++
	fw.buf = fw.buf[:0]
	return nil
}

// zeros pads short blocks as they are hashed.
var zeros [4096]byte

// writePadded writes block to h zero-padded to bs bytes.
func writePadded(h hash.Hash, block []byte, bs int) {
	h.Write(block)
	for n := bs - len(block); n > 0; n -= len(zeros) {
		h.Write(zeros[:min(n, len(zeros))])
	}
}

// md4Matches checks block i's MD4 with the writer's own hash: writers may
// run at once, and the matcher's counters are the seed scan's.
func (fw *FetchWriter) md4Matches(i int, block []byte) bool {
	if fw.h == nil {
		fw.h = newMD4()
	}
	fw.h.Reset()
	writePadded(fw.h, block, fw.m.c.Blocksize)
	fw.sum = fw.h.Sum(fw.sum[:0])
	return fw.m.checksumMatches(i, fw.sum)
}

// Close reports a block left incomplete and writes what is gathered.
func (fw *FetchWriter) Close() error {
	if len(fw.buf) > 0 {
		return fmt.Errorf("zsync: fetched block %d: want %d bytes, got %d", fw.next, fw.m.c.blockLen(fw.next), len(fw.buf))
	}
	return fw.m.Flush()
}
