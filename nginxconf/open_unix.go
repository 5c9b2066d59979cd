//go:build unix

package nginxconf

import "syscall"

// openNonblock: a FIFO is opened without waiting for a writer, and then
// refused as not regular (openRegular).
const openNonblock = syscall.O_NONBLOCK
