package fetch

import (
	"errors"
	"fmt"
	"io"
)

// ErrTooLarge: the transfer was refused or stopped because the body, or what
// it decoded or rebuilt to, is over a bound: --max-filesize, or --max-ratio
// bytes out per byte in (exit 4: the transfer was refused).
var ErrTooLarge = errors.New("too large")

// Default bound on decoded and rebuilt output: at most DefaultMaxRatio
// bytes written per byte received (a delta's base and a compression
// dictionary, held before, are allowed once on top: checkGiven), and
// always at least DefaultRatioFloor. gzip cannot exceed about
// 1032:1; a 16 KiB brotli stream of 10 GiB is 650,000:1.
const (
	DefaultMaxRatio   = 1024
	DefaultRatioFloor = 64 << 20
)

// Limits bound what one fetch writes (curl's --max-filesize, and a
// decompression-bomb bound curl does not have).
type Limits struct {
	// MaxFileSize refuses a body whose announced length (Content-Length,
	// or a 206's complete length) is over it, and stops one that writes
	// more, decoded or rebuilt or as received. 0: no bound.
	MaxFileSize int64
	// MaxRatio bounds decoded (--compressed) and rebuilt (226) output to
	// MaxRatio bytes per byte in, once past Floor. 0: DefaultMaxRatio;
	// negative: no bound.
	MaxRatio int64
	// Floor is the output always allowed whatever the ratio (0:
	// DefaultRatioFloor).
	Floor int64
}

// limitError is an ErrTooLarge; ratio says the ratio bound was hit (a
// delta that hits it is unusable and fetched in full instead).
type limitError struct {
	msg   string
	ratio bool
}

func (e *limitError) Error() string { return e.msg }
func (e *limitError) Unwrap() error { return ErrTooLarge }

// checkLength refuses an announced length over MaxFileSize.
func (l Limits) checkLength(n int64) error {
	if l.MaxFileSize > 0 && n > l.MaxFileSize {
		return &limitError{msg: fmt.Sprintf("refused: the body is %d bytes, over --max-filesize %d", n, l.MaxFileSize)}
	}
	return nil
}

// CheckRebuilt applies the bound on rebuilt output to out bytes written
// from in bytes read (a zsync rebuild from seeds): ErrTooLarge past it,
// naming --max-filesize or --max-ratio.
func (l Limits) CheckRebuilt(out, in int64) error { return l.checkOutput(out, in, true) }

// readCap bounds a read at off of a body of unknown length to the byte
// past MaxFileSize, so a body over it stops there, not a buffer later.
func (l Limits) readCap(off int64, b []byte) []byte {
	if l.MaxFileSize > 0 && l.MaxFileSize-off < int64(len(b)) {
		return b[:max(l.MaxFileSize-off+1, 1)]
	}
	return b
}

// checkOutput fails once out bytes written would exceed MaxFileSize or,
// when the output is decoded or rebuilt, the ratio bound for in bytes in.
func (l Limits) checkOutput(out, in int64, expands bool) error {
	return l.checkGiven(out, 0, in, expands)
}

// checkGiven is checkOutput for output that may copy, besides what the in
// bytes received make, given bytes the client already held (a compression
// dictionary, a delta's base): they are allowed once on top of the ratio's bound, not
// multiplied by it as bytes in, since a body of a few bytes may copy them
// again and again.
func (l Limits) checkGiven(out, given, in int64, expands bool) error {
	if l.MaxFileSize > 0 && out > l.MaxFileSize {
		return &limitError{msg: fmt.Sprintf("stopped: %d bytes out would pass --max-filesize %d", out, l.MaxFileSize)}
	}
	if !expands || l.MaxRatio < 0 {
		return nil
	}
	total := out
	out -= given
	ratio, floor := l.MaxRatio, l.Floor
	if ratio == 0 {
		ratio = DefaultMaxRatio
	}
	if floor <= 0 {
		floor = DefaultRatioFloor
	}
	if out > floor && (out-1)/ratio >= in { // out > ratio*in, without overflow

		held := ""
		if given > 0 {
			held = fmt.Sprintf(" beside the %d bytes held before (the dictionary or the base)", given)
		}
		return &limitError{ratio: true, msg: fmt.Sprintf("stopped: %d bytes out from %d bytes in%s would pass %d:1 (a decompression bomb?); --max-ratio raises the bound", total, in, held, ratio)}
	}
	return nil
}

// boundedWriter writes to w while the output stays within the limits; in
// reports the bytes in so far. A write that would pass a bound writes
// nothing and fails; err keeps that failure, whatever a decoder between
// makes of it.
type boundedWriter struct {
	w       io.Writer
	lim     Limits
	in      func() int64
	given   int64 // bytes held before (a dictionary, a base) the output may copy: checkGiven
	expands bool
	n       int64
	err     error
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if err := b.lim.checkGiven(b.n+int64(len(p)), b.given, b.in(), b.expands); err != nil {
		b.err = err
		return 0, err
	}
	n, err := b.w.Write(p)
	b.n += int64(n)
	return n, err
}

// capReader reads r no further than the byte past MaxFileSize: a body of
// unknown length that is not written as it comes (a chunked 226's delta,
// whose vcdiff window is held until whole) is stopped there, as one whose
// announced length is over it is refused (checkLength). err keeps that
// failure, whatever a decoder between makes of it.
type capReader struct {
	r   io.Reader
	lim Limits
	n   int64
	err error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(c.lim.readCap(c.n, p))
	c.n += int64(n)
	if c.lim.MaxFileSize > 0 && c.n > c.lim.MaxFileSize {
		c.err = &limitError{msg: fmt.Sprintf("stopped: the body passed --max-filesize %d as received", c.lim.MaxFileSize)}
		return n, c.err
	}
	return n, err
}
