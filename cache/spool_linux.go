package cache

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// openAnon opens an anonymous file (O_TMPFILE) in the directory d.
func openAnon(d *os.File) (*os.File, error) {
	var fd int
	var err error
	cerr := withFd(d, func(dfd int) {
		fd, err = unix.Openat(dfd, ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	})
	if err == nil {
		err = cerr
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open anonymous file in", Path: d.Name(), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.Name(), "(spool)")), nil
}

// linkAnon names the anonymous file f name in the directory d. Linking
// through /proc/self/fd needs no privilege, unlike AT_EMPTY_PATH.
func linkAnon(f, d *os.File, name string) error {
	var err error
	cerr := withFd(f, func(fd int) {
		if derr := withFd(d, func(dfd int) {
			err = unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", fd), dfd, name, unix.AT_SYMLINK_FOLLOW)
		}); derr != nil {
			err = derr
		}
	})
	if err == nil {
		err = cerr
	}
	if err != nil {
		return &fs.PathError{Op: "link", Path: name, Err: err}
	}
	return nil
}

// withFd runs fn with f's descriptor.
func withFd(f *os.File, fn func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { fn(int(fd)) })
}

// links returns how many names the file of fi has.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) // uint32 on some architectures
	}
	return 1
}
