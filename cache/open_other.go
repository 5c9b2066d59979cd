//go:build !unix

package cache

// openNonblock: no FIFO blocks an open here.
const openNonblock = 0
