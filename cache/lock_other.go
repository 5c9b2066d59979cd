//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd || windows)

package cache

import (
	"os"
	"sync"
)

// On systems without flock(2) or LockFileEx (aix, solaris, plan9, js,
// wasip1) the lock only excludes goroutines of this process; processes
// sharing a cache there may lose an index update, never see a torn file.
var processLock sync.Mutex

func lockFile(*os.File) error {
	processLock.Lock()
	return nil
}

func unlockFile(*os.File) error {
	processLock.Unlock()
	return nil
}
