package patch

import (
	"sync/atomic"
	"unsafe"
)

// Large tables and buffers the encoder fills or reads at random are asked
// of the kernel in huge pages (adviseHuge): a lookup in a table of
// megabytes misses the TLB at 4 KiB pages, and filling it costs a page
// fault per 4 KiB instead of per 2 MiB. Where the advice is refused or
// unknown (other systems), the memory works as before.
const hugeMin = 4 << 20 // smaller allocations are left alone

// HugePages turns the advice on. A short-lived command (hdig diff) sets
// it; a long-lived process (hdig serve) leaves it off: the advice stays
// on those heap ranges after the tables are freed, and khugepaged may
// back memory the Go runtime gave back to the system with huge pages
// again, growing RSS for good (what made Go drop its own advice,
// golang/go#63334).
var HugePages atomic.Bool

// advised counts the bytes advised, for tests.
var advised atomic.Int64

// huge advises b when HugePages is on and b is large enough.
func huge(b []byte) {
	if HugePages.Load() && len(b) >= hugeMin {
		advised.Add(int64(len(b)))
		adviseHuge(b)
	}
}

// newTable returns a zeroed table of n entries.
func newTable(n int) []uint32 {
	t := make([]uint32, n)
	if n > 0 {
		huge(unsafe.Slice((*byte)(unsafe.Pointer(&t[0])), n*4))
	}
	return t
}

// newBytes returns n zeroed bytes.
func newBytes(n int) []byte {
	b := make([]byte, n)
	huge(b)
	return b
}
