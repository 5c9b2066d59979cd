package zsync

import (
	"sync/atomic"
	"unsafe"
)

// made counts the bytes of the tables and buffers this package makes at
// sizes its input decides (a control file's block count and block size,
// a seed's length), so that tests bound what a hostile control file can
// make hdig allocate by counting the work, not by reading the heap.
var made atomic.Int64

// makeSlice is make([]T, n, c), counted in made.
func makeSlice[T any](n, c int) []T {
	var z T
	made.Add(int64(c) * int64(unsafe.Sizeof(z)))
	return make([]T, n, c)
}
