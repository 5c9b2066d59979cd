package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hdig/hdig/httpfield"
)

// transportError classifies an error from sending the request.
func (c *Client) transportError(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), ErrIdleTimeout) {
		return networkError(fmt.Errorf("%w after %s", ErrIdleTimeout, c.timeout))
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return context.Canceled
	}
	var ie *inputError
	if errors.As(err, &ie) {
		return ie // the request body's file (sameBytes), not the network
	}
	var re *redirectError
	if errors.As(err, &re) {
		// The redirect refused says which URL; net/http's "Get LOCATION:"
		// before it names the Location as written, often relative.
		err = re
	}
	return networkError(transportProblem(err))
}

// bodyError classifies an error while reading the body: the connection's
// errors are network failures, a decoder's are protocol errors.
func (c *Client) bodyError(ctx context.Context, err error, got, want int64) error {
	cause := context.Cause(ctx)
	var re *readError
	var we *writeError
	switch {
	case errors.Is(cause, ErrIdleTimeout):
		return networkError(fmt.Errorf("%w after %s (%d bytes received)", ErrIdleTimeout, c.timeout, got))
	case errors.Is(err, context.Canceled) || errors.Is(cause, context.Canceled):
		return context.Canceled
	case errors.Is(err, ErrProtocol), errors.Is(err, ErrTooLarge), errors.As(err, &we):
		return err
	case errors.As(err, &re):
		if errors.Is(err, io.ErrUnexpectedEOF) && want >= 0 {
			return networkError(fmt.Errorf("body truncated: got %d of %d bytes", got, want))
		}
		return networkError(fmt.Errorf("reading body after %d bytes: %w", got, re.err))
	}
	return protocolErrorf("decoding the body: %v", err)
}

// writeError is a failure to write the output.
type writeError struct{ err error }

func (e *writeError) Error() string   { return "write output: " + e.err.Error() }
func (e *writeError) Unwrap() []error { return []error{ErrOutput, e.err} }

// sinkWriter tags the sink's errors.
type sinkWriter struct{ s Sink }

func (w sinkWriter) Write(p []byte) (int, error) {
	n, err := w.s.Write(p)
	if err != nil {
		err = &writeError{err: err}
	}
	return n, err
}

// MaxErrorBody bounds the error body kept for --fail-with-body.
const MaxErrorBody = 1 << 20

// statusError reads a short excerpt of an error body, and with keep the
// body itself, up to MaxErrorBody bytes.
func statusError(resp *http.Response, keep bool) *StatusError {
	var whole []byte
	if keep {
		whole, _ = io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if keep {
		b = whole[:min(len(whole), 512)]
	}
	ex := httpfield.Printable(string(b))
	if len(ex) > 200 {
		ex = ex[:200] + "…"
	}
	return &StatusError{Code: resp.StatusCode, Status: httpfield.Printable(resp.Status), Excerpt: ex, Body: whole, read: int64(max(len(whole), len(b)))}
}

// retryable says whether a failed attempt may succeed on retry.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code == http.StatusRequestTimeout || se.Code == http.StatusTooManyRequests || se.Code >= 500
	}
	return errors.Is(err, ErrNetwork)
}

// backoff is the wait before retry attempt+1: RetryDelay when set
// (--retry-delay), else 0.5 s doubling to 8 s.
func (r *Request) backoff(attempt int) time.Duration {
	if r.RetryDelay > 0 {
		return r.RetryDelay
	}
	return backoff(attempt)
}

// backoff is the wait before retry attempt+1: 0.5 s doubling to 8 s.
func backoff(attempt int) time.Duration {
	d := 500 * time.Millisecond << attempt
	if d > 8*time.Second || d <= 0 {
		d = 8 * time.Second
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
