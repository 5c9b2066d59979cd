// Package smallfile reads a small file whole, bounded: a file that is
// larger than it should be (or never ends, as /dev/zero) costs at most the
// bound plus one byte, never its whole size.
package smallfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge marks a file over the bound.
var ErrTooLarge = errors.New("too large")

// Read returns the bytes of the file name when it holds at most max of
// them; past max it stops reading and the error wraps ErrTooLarge.
func Read(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w: over %d bytes", name, ErrTooLarge, max)
	}
	return b, nil
}
