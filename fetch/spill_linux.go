package fetch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// spillBeside opens an anonymous file (O_TMPFILE: no name, nothing left
// behind) in the directory of out when out is a regular file, so a held
// body is spooled on the filesystem it will be released to: there
// copy_file_range shares the spool's extents instead of copying them where
// the filesystem can (XFS, Btrfs), and copies in the kernel elsewhere. The
// directory is found by out's path (/proc/self/fd) and used only when it is
// on out's filesystem still (a path renamed or unmounted since is not).
func spillBeside(out any) (*os.File, error) {
	o, ok := out.(*os.File)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	// Not o.Fd(), which would put a non-blocking pipe in blocking mode.
	rc, err := o.SyscallConn()
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	var ofd uintptr
	if cerr := rc.Control(func(f uintptr) { ofd, err = f, unix.Fstat(int(f), &st) }); cerr != nil || err != nil {
		return nil, errors.ErrUnsupported
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, errors.ErrUnsupported
	}
	name, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", ofd))
	if err != nil || !filepath.IsAbs(name) || strings.HasSuffix(name, " (deleted)") {
		return nil, errors.ErrUnsupported
	}
	dir := filepath.Dir(name)
	dfd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	var ds unix.Stat_t
	if err := unix.Fstat(dfd, &ds); err != nil {
		return nil, err
	}
	if ds.Dev != st.Dev {
		return nil, errors.ErrUnsupported
	}
	fd, err := unix.Openat(dfd, ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "(held)")), nil
}
