//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package cache

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) on f, waiting for it. The kernel
// releases it when the process dies, so a crash never leaves the cache locked.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
