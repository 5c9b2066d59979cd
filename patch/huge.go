package patch

import "unsafe"

// Large tables and buffers the encoder fills or reads at random are asked
// of the kernel in huge pages (adviseHuge): a lookup in a table of
// megabytes misses the TLB at 4 KiB pages, and filling it costs a page
// fault per 4 KiB instead of per 2 MiB. Where the advice is refused or
// unknown (other systems), the memory works as before.
const hugeMin = 4 << 20 // smaller allocations are left alone

// newTable returns a zeroed table of n entries.
func newTable(n int) []uint32 {
	t := make([]uint32, n)
	if n*4 >= hugeMin {
		adviseHuge(unsafe.Slice((*byte)(unsafe.Pointer(&t[0])), n*4))
	}
	return t
}

// newBytes returns n zeroed bytes.
func newBytes(n int) []byte {
	b := make([]byte, n)
	if n >= hugeMin {
		adviseHuge(b)
	}
	return b
}
