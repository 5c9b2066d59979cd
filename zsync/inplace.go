package zsync

import (
	"errors"
	"fmt"
	"io"
)

// inPlaceChunk is the most bytes SeedInPlace reads at once.
const inPlaceChunk = 1 << 20

// SeedInPlace takes the blocks already at their own place in a file of
// size bytes: the part an interrupted run of the same control file left,
// which is also the output. Each block at its offset is checked by rsum
// and MD4 like a fetched one and, when it matches, counted as present
// (FromSeed) without being written again; the others stay missing. Call it
// before any other seed writes into the output.
func (m *Matcher) SeedInPlace(r io.ReaderAt, size int64) error {
	bs := m.c.Blocksize
	per := max(1, inPlaceChunk/bs)
	n := int(min(int64(per*bs), m.c.Length)) // no more than the target
	buf := makeSlice[byte](n, n)
	h := newMD4()
	var sum []byte
	for first := 0; first < m.have.n; first += per {
		start := int64(first) * int64(bs)
		if start >= size {
			break
		}
		n := int(min(int64(len(buf)), size-start, m.c.Length-start))
		k, err := r.ReadAt(buf[:n], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("zsync: reading the part at %d: %w", start, err)
		}
		for i := first; i < min(first+per, m.have.n); i++ {
			at := (i - first) * bs
			want := m.c.blockLen(i)
			if at+want > k {
				break
			}
			block := buf[at : at+want] // the last block is hashed zero-padded
			a, b := rsumPadded(block, bs)
			if join(a, b)&m.mask != m.c.Rsums[i] {
				continue
			}
			h.Reset()
			writePadded(h, block, bs)
			sum = h.Sum(sum[:0])
			m.mu.Lock()
			m.Tested++
			if m.checksumMatches(i, sum) && m.have.take(i) {
				m.FromSeed += int64(want)
			}
			m.mu.Unlock()
		}
	}
	return nil
}
