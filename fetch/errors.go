// Package fetch is hdig's client engine: it sends requests that ask for
// digests, streams bodies through the verifiers into a sink, and decides
// whether the bytes may be released.
package fetch

import (
	"errors"
	"fmt"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrMismatch: an accepted digest did not match the bytes received.
	ErrMismatch = errors.New("digest mismatch")
	// ErrUnverified: a digest was required and none accepted verified.
	ErrUnverified = errors.New("no accepted digest verified")
	// ErrNetwork: the connection failed, was reset, timed out or the body
	// was truncated.
	ErrNetwork = errors.New("network failure")
	// ErrProtocol: the origin broke the protocol in a way no fallback could
	// repair (malformed Content-Range, corrupt delta after a failed refetch).
	ErrProtocol = errors.New("protocol error")
	// ErrOutput: the output could not be written (a part file that cannot
	// be created, a full disk, a failed rename).
	ErrOutput = errors.New("cannot write the output")
	// ErrIdleTimeout: no bytes arrived within the timeout.
	ErrIdleTimeout = errors.New("timed out waiting for data")
	// ErrUnsupportedCoding: a Content-Encoding hdig cannot undo.
	ErrUnsupportedCoding = errors.New("unsupported Content-Encoding")
)

// StatusError is an HTTP status >= 400.
type StatusError struct {
	Code    int
	Status  string
	Excerpt string // the start of the response body, printable
	Body    []byte // the body, with Request.KeepErrorBody
	read    int64  // the body's bytes read off the network (Result.Received)
}

func (e *StatusError) Error() string {
	if e.Excerpt == "" {
		return fmt.Sprintf("server answered %s", e.Status)
	}
	return fmt.Sprintf("server answered %s: %s", e.Status, e.Excerpt)
}

// netError wraps a transport error so errors.Is(err, ErrNetwork) holds.
type netError struct{ err error }

func (e *netError) Error() string   { return e.err.Error() }
func (e *netError) Unwrap() []error { return []error{ErrNetwork, e.err} }
func networkError(err error) error  { return &netError{err: err} }
func protocolErrorf(f string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(f, a...))
}

// ErrInput: an input file named by the caller (a zsync seed) cannot be
// read.
var ErrInput = errors.New("cannot read an input file")

// inputError wraps err, an input file that cannot be read, with ErrInput.
type inputError struct{ err error }

func (e *inputError) Error() string   { return e.err.Error() }
func (e *inputError) Unwrap() []error { return []error{ErrInput, e.err} }

// mismatchError wraps err, bytes proven wrong by a check other than a
// digest field (a zsync block's MD4, the control file's SHA-1 or Length),
// so that errors.Is(err, ErrMismatch) holds.
type mismatchError struct{ err error }

func (e *mismatchError) Error() string   { return e.err.Error() }
func (e *mismatchError) Unwrap() []error { return []error{ErrMismatch, e.err} }

func mismatch(err error) error {
	if err == nil {
		return nil
	}
	return &mismatchError{err: err}
}

// redirectError is a redirect the client refused to follow (--max-redirs,
// a hop's rule): its message names the URL not followed.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }
