//go:build !linux

package patch

// newTable returns a zeroed table of n entries.
func newTable(n int) []uint32 { return make([]uint32, n) }
