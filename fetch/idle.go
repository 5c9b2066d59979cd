package fetch

import (
	"context"
	"io"
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

// countingReader counts bytes read.
type countingReader struct {
	r   io.Reader
	n   int64
	bar PieceProgress // when set, sees the bytes too
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
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
