package fetch

import (
	"context"
	"io"
	"sync/atomic"
	"time"
)

// idleReader cancels its context when no Read returns data for timeout.
type idleReader struct {
	r       io.Reader
	timer   *time.Timer
	timeout time.Duration
}

func newIdleReader(r io.Reader, timeout time.Duration, cancel context.CancelCauseFunc) *idleReader {
	return &idleReader{
		r:       r,
		timeout: timeout,
		timer:   time.AfterFunc(timeout, func() { cancel(ErrIdleTimeout) }),
	}
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(r.timeout)
	}
	return n, err
}

func (r *idleReader) stop() { r.timer.Stop() }

// countingReader counts bytes read. The count may be read by another
// goroutine than the reader's: a delta decoder writes its output, whose
// bound asks for the count, on a goroutine of its own.
type countingReader struct {
	r   io.Reader
	n   atomic.Int64
	bar PieceProgress // when set, sees the bytes too
}

// count returns the bytes read so far.
func (c *countingReader) count() int64 { return c.n.Load() }

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	if c.bar != nil && n > 0 {
		c.bar.Add(n)
	}
	if err != nil && err != io.EOF {
		err = &readError{err: err}
	}
	return n, err
}

// readError marks an error of the connection, as opposed to one of a
// decoder reading the bytes that arrived.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }
