// Package patch implements the RFC 3229 instance manipulations hdig speaks:
// the delta codings vcdiff (RFC 3284, with xdelta3's application header and
// Adler-32 window checksum), gdiff (W3C NOTE-gdiff-19970901) and diffe
// ("diff -e" ed scripts), and the compressions zstd, br, gzip and deflate
// that may follow one ("IM: vcdiff, zstd"; zstd and br by the names of
// their content codings, as RFC 3229 §10.7.3 uses gzip).
//
// Decoders read the base through an io.ReaderAt and the delta from an
// io.Reader and write the result to an io.Writer; their memory is bounded by
// the target window and a source block cache, not by the size of the files.
// Undo reverses an IM list for a client; Encode produces one for a server.
package patch

import (
	"errors"
	"fmt"
)

// ErrCorrupt is wrapped by every error about a malformed delta: bad magic,
// truncated sections, out-of-range sizes or addresses, checksum mismatches.
var ErrCorrupt = errors.New("corrupt delta")

// ErrLimit is wrapped by errors about a well-formed input that exceeds a
// configured limit (window size, output size, text size).
var ErrLimit = errors.New("limit exceeded")

// ErrCompression is wrapped, with ErrCorrupt, by errors of Undo about a
// compression that follows the delta coding ("IM: vcdiff, zstd") and does
// not decode: what failed is that layer, not the delta against its base.
var ErrCompression = errors.New("compression does not decode")

// ErrUnsupported is wrapped by errors about valid input that uses a feature
// hdig does not implement, such as VCDIFF secondary compression.
var ErrUnsupported = errors.New("unsupported")

// corruptf returns an error wrapping ErrCorrupt.
func corruptf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
}

// limitf returns an error wrapping ErrLimit.
func limitf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrLimit}, a...)...)
}
