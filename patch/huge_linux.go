package patch

import (
	"syscall"
	"unsafe"
)

const (
	hugePage     = 2 << 20
	madvHugepage = 14 // MADV_HUGEPAGE
	hugeTableMin = 4 << 20
)

// newTable returns a zeroed table of n entries. A large one is looked up
// at random, a cache and TLB miss per lookup: the kernel is asked to back
// it with huge pages (with transparent huge pages in "madvise" mode, as
// Debian and most distributions set them), which also makes filling it
// cost a page fault per 2 MiB instead of per 4 KiB. The advice is only
// advice: where it is refused the table works as before.
func newTable(n int) []uint32 {
	t := make([]uint32, n)
	if n*4 < hugeTableMin {
		return t
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&t[0])), n*4)
	lo := int(-uintptr(unsafe.Pointer(&t[0])) & (hugePage - 1)) // to the first 2 MiB boundary
	if hi := lo + (len(b)-lo)&^(hugePage-1); hi > lo {
		_ = syscall.Madvise(b[lo:hi], madvHugepage)
	}
	return t
}
