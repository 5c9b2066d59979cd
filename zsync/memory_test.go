package zsync

import (
	"bytes"
	"testing"
)

// tableBytes is the most bytes a block may cost, made in all (counted in
// made, not read off the heap), from
// reading its control file to the end of a seed scan by four workers:
// at MaxBlocks that is the memory a hostile control file of many small
// blocks can make hdig allocate.
const tableBytes = 64

// A control file's blocks cost 149 bytes each in allocations with 16-byte
// checksums (its table grown by append's small steps, five times its
// size; its index with a copy of its slots' starts; a copy of the index's
// retirement record per scanning worker; a byte of the written record):
// at the former MaxBlocks (2^26 blocks, a 256 MiB control file) about 10
// GB. Now at most tableBytes a block, and MaxBlocks is 2^24: 1 GiB at
// worst.
func TestControlMemoryPerBlock(t *testing.T) {
	const n = 1 << 18
	c := &Control{Blocksize: 16, Length: n * 16, SeqMatches: 2, RsumBytes: 4, ChecksumBytes: 16}
	r := randomBytes(5, n*20)
	for i := 0; i < n; i++ {
		b := r[i*20:]
		c.Rsums = append(c.Rsums, uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]))
		c.Checksums = append(c.Checksums, b[4:20]...)
	}
	file := encode(t, c)
	seed := make([]byte, 1<<20) // zeros: no block of random rsums is in it
	before := made.Load()
	got, err := Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatcher(got, &memFile{})
	if err := m.SeedAt(bytes.NewReader(seed), int64(len(seed)), 4); err != nil {
		t.Fatal(err)
	}
	total := made.Load() - before
	// The scanners' buffers do not grow with the blocks.
	fixed := int64(4 * 2 * seedBuf)
	per := float64(total-min(fixed, total)) / n
	t.Logf("%.1f bytes a block made", per)
	if per > tableBytes {
		t.Errorf("%.1f bytes a block made, want at most %d", per, tableBytes)
	}
	if MaxBlocks*tableBytes > 1<<30 {
		t.Errorf("MaxBlocks %d at %d bytes a block: over 1 GiB", MaxBlocks, tableBytes)
	}
}

// Files past MaxBlocks blocks of 4 KiB get larger default blocks, so that
// hdig's own control files stay readable.
func TestDefaultBlocksizeWithinMaxBlocks(t *testing.T) {
	for _, length := range []int64{99_999_999, 100_000_000, 64 << 30, 64<<30 + 1, 1 << 40, 1 << 45} {
		bs := DefaultBlocksize(length)
		if n := blockCount(length, bs); n > MaxBlocks && bs < MaxBlocksize {
			t.Errorf("DefaultBlocksize(%d) = %d: %d blocks, over %d", length, bs, n, MaxBlocks)
		}
	}
	if DefaultBlocksize(64<<30) != 4096 || DefaultBlocksize(64<<30+1) != 8192 {
		t.Errorf("DefaultBlocksize at 64 GiB = %d, %d past; want 4096, 8192", DefaultBlocksize(64<<30), DefaultBlocksize(64<<30+1))
	}
}

// A control file declaring the largest blocks for a target of 100 bytes
// made hdig allocate about 400 MB: every buffer followed the block size,
// not the target (two pairs of blocks for each of four seed scanners, a
// block for each write-gathering buffer, the fetch writer and the in-place
// check). Each is now capped by what the target can need: a scanner holds
// one window of the one block, and the seed; the others its 100 bytes.
func TestHugeBlocksizeTinyTarget(t *testing.T) {
	data := randomBytes(7, 100)
	c := makeControl(t, data, MaxBlocksize)
	c.SeqMatches = 2 // pairs declared, with one block
	seed := append(randomBytes(8, 2<<20), data...)
	part := bytes.Clone(data)
	part[7] ^= 1
	before := made.Load()
	m := NewMatcher(c, &memFile{})
	if err := m.SeedInPlace(bytes.NewReader(part), int64(len(part))); err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteFetched(0, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	m2 := NewMatcher(c, &memFile{})
	if err := m2.SeedAt(bytes.NewReader(seed), int64(len(seed)), 4); err != nil {
		t.Fatal(err)
	}
	got := made.Load() - before
	if m.FromSeed != 0 || m.Fetched != 100 || m2.FromSeed != 100 {
		t.Errorf("in place %d, fetched %d, from the seed %d; want 0, 100, 100", m.FromSeed, m.Fetched, m2.FromSeed)
	}
	if limit := int64(MaxBlocksize + len(seed) + 1<<20); got > limit {
		t.Errorf("%d MiB made for a target of 100 bytes, want at most %d MiB", got>>20, limit>>20)
	}
}
