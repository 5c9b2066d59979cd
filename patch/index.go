package patch

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
)

// index maps the hash of hlen bytes at every step-th offset of the base to
// offset/step+1 in the low kbits of an entry; the bits above hold a tag
// of the hash (bits the bucket number does not use), so most candidates
// that only share a bucket are rejected without reading the base.
type index struct {
	table []uint32 // buckets of ways entries
	shift uint
	step  int64
	hlen  int
	ways  int
	kbits uint
}

func (x *index) hash(b []byte) uint64 {
	h := binary.LittleEndian.Uint64(b) * 0x9E3779B97F4A7C15
	if x.hlen == 16 {
		h = (h ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[8:]), 29)) * 0xC2B2AE3D27D4EB4F
	}
	return h
}

func newIndex(size int64, hlen, ways int, minStep int64, entries int) *index {
	x := &index{step: minStep, hlen: hlen, ways: ways}
	n := int64(1) << (63 - bits.LeadingZeros64(uint64(entries)))
	if samples := size / minStep; samples < n {
		n = max(1<<10, int64(1)<<(64-bits.LeadingZeros64(uint64(samples))))
	} else {
		x.step = (size + n - 1) / n
	}
	x.table = newTable(int(n))
	x.shift = uint(64 - bits.TrailingZeros64(uint64(n/int64(ways))))
	x.kbits = uint(bits.Len64(uint64(n))) // every offset/step+1 is at most n
	return x
}

// tag is the part of hash h stored above the offset.
func (x *index) tag(h uint64) uint32 {
	return uint32(h) << x.kbits
}

// add indexes the sampled offsets of buf, which holds the base from off.
func (x *index) add(buf []byte, off int64) {
	i := (off + x.step - 1) / x.step * x.step
	for ; i-off+int64(x.hlen) <= int64(len(buf)); i += x.step {
		// Sample k goes to way k mod ways: no shifting, oldest replaced.
		k := i / x.step
		h := x.hash(buf[i-off:])
		x.table[int(h>>x.shift)*x.ways+int(k)%x.ways] = uint32(k+1) | x.tag(h)
	}
}

// lookup appends to dst the base offsets indexed for the bytes at b whose
// tag matches.
func (x *index) lookup(dst []int64, b []byte) []int64 {
	if len(b) < x.hlen {
		return dst
	}
	h := x.hash(b)
	tag, mask := x.tag(h), uint32(1)<<x.kbits-1
	for _, e := range x.table[int(h>>x.shift)*x.ways:][:x.ways] {
		if e&mask != 0 && e&^mask == tag {
			dst = append(dst, int64(e&mask-1)*x.step)
		}
	}
	return dst
}

// touch reads the first entry of the bucket of every position in
// t[from:to] and returns a value made of them, so that the reads are kept.
// A bucket is one cache line; the reads do not depend on each other, so
// the memory system serves them in parallel, where a lookup at a time
// waits for each miss in turn (the 16 MiB profile spent 40% there).
func (x *index) touch(t []byte, from, to int) uint32 {
	var sum uint32
	for q := from; q < to && q+x.hlen <= len(t); q++ {
		sum += x.table[int(x.hash(t[q:])>>x.shift)*x.ways]
	}
	return sum
}

// indexBase adds the whole base to the indexes. A base the block cache
// holds whole is read into the cache and indexed from there, so it is read
// once in all; a larger one is streamed past the indexes in 1 MiB pieces
// (and read again by the copies).
func (m *matcher) indexBase(base io.ReaderAt, size int64) error {
	if m.src.whole {
		var joint [32]byte
		tail := 0 // bytes of the previous block at the start of joint
		for off := int64(0); off < size; off += blockSize {
			p, err := m.src.span(off, blockSize)
			if err != nil {
				return err
			}
			// The samples that straddle the boundary at off.
			k := copy(joint[tail:], p[:min(len(p), 15)])
			for _, x := range m.idx {
				x.add(p, off)
				x.add(joint[:tail+k], off-int64(tail))
			}
			tail = copy(joint[:], p[max(0, len(p)-15):])
		}
		return nil
	}
	buf := make([]byte, 1<<20+16)
	for off := int64(0); off < size; off += 1 << 20 {
		n := int(min(int64(len(buf)), size-off))
		if k, err := base.ReadAt(buf[:n], off); k < n {
			return fmt.Errorf("read base at %d: %w", off, err)
		}
		for _, x := range m.idx {
			x.add(buf[:n], off)
		}
	}
	return nil
}
