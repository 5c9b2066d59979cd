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
