//go:build unix

package cache

import "syscall"

// openNonblock opens a linked file with O_NONBLOCK: a FIFO put at its
// name does not block Open (it is refused as not the file recorded).
const openNonblock = syscall.O_NONBLOCK
