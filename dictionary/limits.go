package dictionary

import (
	"errors"
	"fmt"
	"io"
)

// DefaultMaxOutput bounds a decoded body when Limits.MaxOutput is zero.
const DefaultMaxOutput = 256 << 20

// Limits bounds what a decoder produces.
type Limits struct {
	// MaxOutput is the most decoded bytes accepted; 0 means DefaultMaxOutput.
	MaxOutput int64
	// MaxRatio, when positive, also caps the output at MaxRatio times the
	// size of the encoded body plus the dictionary.
	MaxRatio int64
}

// ErrTooLarge is returned when decoding would exceed the output cap.
var ErrTooLarge = errors.New("decoded output exceeds the cap")

func (l Limits) cap(body, dict int) int64 {
	c := l.MaxOutput
	if c <= 0 {
		c = DefaultMaxOutput
	}
	if l.MaxRatio > 0 {
		if r := l.MaxRatio * int64(body+dict); r < c {
			c = r
		}
	}
	return c
}

// readBounded reads r to the end, failing once more than max bytes come.
func readBounded(coding string, r io.Reader, max int64) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", coding, err)
	}
	if int64(len(out)) > max {
		return nil, fmt.Errorf("%s: %w: want at most %d bytes, got more", coding, ErrTooLarge, max)
	}
	return out, nil
}
