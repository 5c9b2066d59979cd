package zsync

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"io"
)

// Check reads a file from r and reports whether c describes it: the same
// length, every block's rsum and MD4 as stored (recomputed, truncated as
// the control file keeps them) and the same SHA-1. The error names the
// first difference and counts the blocks that differ; it wraps ErrMismatch.
// Memory stays one block whatever the file's size.
func (c *Control) Check(r io.Reader) error {
	whole := sha1.New()
	block := makeSlice[byte](c.Blocksize, c.Blocksize)
	mask := rsumMask(c.RsumBytes)
	h := newMD4()
	var got int64
	bad, first := 0, -1
	for i := 0; ; i++ {
		k, err := io.ReadFull(r, block)
		got += int64(k)
		if k > 0 {
			whole.Write(block[:k])
			if i < len(c.Rsums) && !c.blockMatches(i, block, k, mask, h) {
				if first < 0 {
					first = i
				}
				bad++
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("zsync: reading the file: %w", err)
		}
		if got > c.Length {
			return fmt.Errorf("zsync: the file is longer than the control file's Length %d: %w", c.Length, ErrMismatch)
		}
	}
	if got != c.Length {
		return fmt.Errorf("zsync: the file has %d bytes, the control file's Length is %d: %w", got, c.Length, ErrMismatch)
	}
	if bad > 0 {
		start := int64(first) * int64(c.Blocksize)
		return fmt.Errorf("zsync: %d of %d blocks differ from the file, the first block %d (bytes %d-%d): %w", bad, c.Blocks(), first, start, start+int64(c.blockLen(first))-1, ErrMismatch)
	}
	var sum [20]byte
	whole.Sum(sum[:0])
	if sum != c.SHA1 {
		return fmt.Errorf("zsync: the file's SHA-1 is %x, the control file's is %x: %w", sum, c.SHA1, ErrMismatch)
	}
	return nil
}

// blockMatches recomputes block i from its first n bytes, zero-padded.
func (c *Control) blockMatches(i int, block []byte, n int, mask uint32, h hash.Hash) bool {
	clear(block[n:])
	if join(rsum(block))&mask != c.Rsums[i] {
		return false
	}
	h.Reset()
	h.Write(block)
	return bytes.Equal(h.Sum(nil)[:c.ChecksumBytes], c.checksum(i))
}
