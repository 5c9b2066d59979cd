package zsync

import (
	"math"
	"time"
)

// Version is the control-file format this package reads and writes.
const Version = "0.6.2"

// Bounds on what a control file may declare; a reader refuses more.
const (
	MinBlocksize = 1 << 4  // smallest block size accepted
	MaxBlocksize = 1 << 24 // largest block size accepted (the matcher holds two blocks)
	// MaxBlocks is the most blocks in one control file. A block costs
	// about 60 bytes of tables (TestControlMemoryPerBlock), so a control
	// file declaring this many costs at most about 1 GiB; 2^24 blocks of
	// 4 KiB are a 64 GiB target (larger ones take larger blocks).
	MaxBlocks        = 1 << 24
	MaxChecksumBytes = md4Size
	maxHeaderBytes   = 64 << 10 // all header lines together
	maxURLs          = 64
)

// Control is the content of a .zsync control file.
type Control struct {
	Filename      string    // suggested output name ("" when absent)
	MTime         time.Time // the target's modification time (zero when absent)
	Blocksize     int       // a power of two
	Length        int64     // the target's length in bytes
	SeqMatches    int       // 1 or 2: consecutive blocks that must match together
	RsumBytes     int       // 1 to 4: bytes of each block's rsum kept
	ChecksumBytes int       // 3 to 16: bytes of each block's MD4 kept
	URLs          []string  // where the target is, relative to the control file
	SHA1          [20]byte  // of the whole target

	// Rsums holds each block's rsum masked to RsumBytes; Checksums holds
	// ChecksumBytes of each block's MD4, block after block.
	Rsums     []uint32
	Checksums []byte
}

// Blocks returns the number of blocks of the target.
func (c *Control) Blocks() int {
	return blockCount(c.Length, c.Blocksize)
}

// blockCount is how many blocks of bs bytes hold length bytes, counted
// in int64 and capped at MaxBlocks+1 (too many: the caller refuses), so a
// huge Length never wraps an int on a 32-bit system.
func blockCount(length int64, bs int) int {
	return int(min((length+int64(bs)-1)/int64(bs), MaxBlocks+1))
}

// checksum returns the stored checksum of block i.
func (c *Control) checksum(i int) []byte {
	return c.Checksums[i*c.ChecksumBytes : (i+1)*c.ChecksumBytes]
}

// blockLen returns the number of target bytes in block i (the last block
// may be short; its checksums cover it zero-padded to Blocksize).
func (c *Control) blockLen(i int) int {
	off := int64(i) * int64(c.Blocksize)
	return int(min(int64(c.Blocksize), c.Length-off))
}

// DefaultBlocksize is the block size zsyncmake 0.6.2 picks for a file of
// the given length: 2048 below 100,000,000 bytes, 4096 from there on; and
// past 64 GiB the smallest that keeps the blocks within MaxBlocks.
func DefaultBlocksize(length int64) int {
	if length < 100_000_000 {
		return 2048
	}
	// Past MaxBlocks blocks of 4 KiB (64 GiB), blocks as large as needed.
	bs := 4096
	for blockCount(length, bs) > MaxBlocks && bs < MaxBlocksize {
		bs *= 2
	}
	return bs
}

// HashLengths returns the seq_matches, rsum_bytes and checksum_bytes that
// zsyncmake 0.6.2 chooses for a file of the given length and block size:
// enough bits that a false block match over the whole file stays unlikely,
// halved when two consecutive blocks must match together.
func HashLengths(length int64, blocksize int) (seq, rsumBytes, checksumBytes int) {
	seq = 1
	if length > int64(blocksize) {
		seq = 2
	}
	l2len := math.Inf(-1)
	if length > 0 {
		l2len = math.Log2(float64(length))
	}
	l2bs := math.Log2(float64(blocksize))
	blocks := math.Log2(float64(1 + length/int64(blocksize)))
	rsumBytes = clampCeil((l2len+l2bs-8.6)/float64(seq)/8, 2, 4)
	checksumBytes = clampCeil((20+l2len+blocks)/float64(seq)/8, 0, MaxChecksumBytes)
	if floor := int((7.9 + 20 + blocks) / 8); checksumBytes < floor {
		checksumBytes = floor
	}
	return seq, rsumBytes, checksumBytes
}

// clampCeil rounds x up and keeps it within [lo, hi]; -Inf gives lo.
func clampCeil(x float64, lo, hi int) int {
	if math.IsInf(x, -1) || x < float64(lo) {
		return lo
	}
	return min(int(math.Ceil(x)), hi)
}

func isPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }
