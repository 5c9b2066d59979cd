package server

import "fmt"

// WithFlippedByteEvery inverts, in every response whose content is a
// single span of the representation (a 200 or a single-range 206), the
// first byte it carries at an offset that is a multiple of n: a mirror that
// corrupts every response of n bytes or more, whichever range it is asked
// for. Digests and lengths stay those of the true bytes.
func WithFlippedByteEvery(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("WithFlippedByteEvery: want a positive period, got %d", n)
		}
		c.faults.flipEvery = n
		return nil
	}
}

// flipEvery is the offset within a span [start, start+length) of its first
// byte at a multiple of n, or -1 when it has none.
func flipEvery(start, length, n int64) int64 {
	k := (start + n - 1) / n * n
	if k-start >= length {
		return -1
	}
	return k - start
}
