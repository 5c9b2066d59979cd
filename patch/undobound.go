package patch

import (
	"io"
	"sync/atomic"
)

// maxDeltaExpansion bounds the bytes a compression may give a delta coding
// per byte the coding writes (past deltaFloor): an honest delta is not
// many times larger than what it builds, while a few bytes of brotli or
// zstd expand to gigabytes of empty vcdiff windows or zero-length gdiff
// copies, which would take minutes to read and write nothing.
const maxDeltaExpansion = 16

// deltaFloor is the decompressed delta always allowed whatever it builds:
// twice the largest window or diffe script the decoders read before they
// write (a window of many short copies may be larger than its target),
// and a header.
func deltaFloor(c *config) int64 {
	return 2*int64(max(c.maxWindow, c.maxText)) + maxHeaderSection
}

// boundedDelta gives a delta coding the decompressed delta while it stays
// within deltaFloor plus maxDeltaExpansion bytes per byte the coding wrote
// to out; past that its reads fail, and err keeps the failure, whatever
// the decoder makes of it.
type boundedDelta struct {
	r     io.Reader
	out   *countedWriter
	floor int64
	read  int64
	err   error
}

func (b *boundedDelta) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	wrote := b.out.n.Load()
	room := b.floor + maxDeltaExpansion*wrote - b.read
	if room <= 0 {
		b.err = limitf("the compression gave the delta coding %d bytes, and it built %d: over %d:1 past %d bytes (a decompression bomb?)",
			b.read, wrote, maxDeltaExpansion, b.floor)
		return 0, b.err
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// countedWriter counts the bytes written through it. The count is read
// by the goroutine decoding the delta, which for hdig-vcdiff-inflated is
// not the one writing (DecodeInflated contracts in another).
type countedWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}
