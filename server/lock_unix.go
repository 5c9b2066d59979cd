//go:build unix

package server

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f without waiting; the
// kernel drops it when the process ends, however it ends.
func lockFile(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// openNonblock opens served files with O_NONBLOCK: a FIFO in the
// directory does not block the request (it is refused as not regular),
// and os skips the two fcntl calls it makes to try the poller on a
// regular file.
const openNonblock = syscall.O_NONBLOCK
