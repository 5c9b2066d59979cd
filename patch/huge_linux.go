package patch

import (
	"syscall"
	"unsafe"
)

const (
	hugePage     = 2 << 20
	madvHugepage = 14 // MADV_HUGEPAGE
)

// adviseHuge asks for the whole 2 MiB pages inside b to be huge pages
// (transparent huge pages in "madvise" mode, as most distributions set
// them). It must be called before b is first touched.
func adviseHuge(b []byte) {
	lo := int(-uintptr(unsafe.Pointer(&b[0])) & (hugePage - 1)) // to the first 2 MiB boundary
	if hi := lo + (len(b)-lo)&^(hugePage-1); lo < len(b) && hi > lo {
		_ = syscall.Madvise(b[lo:hi], madvHugepage)
	}
}
