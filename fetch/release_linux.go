package fetch

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// kernelCopy copies the first size bytes of src to dst's current position
// without passing them through user space: copy_file_range(2) when dst is a
// regular file (on the same filesystem: a reflink or an in-kernel copy),
// else sendfile(2) (a pipe, a socket, a file elsewhere). It returns how
// many bytes it copied; an error only when dst failed after some bytes
// (a closed pipe, a full disk). Anything it cannot do (O_APPEND, an old
// kernel, a non-blocking fd that would block) it leaves to the caller's
// portable copy, from where it stopped.
func kernelCopy(dst, src *os.File, size int64) (int64, error) {
	sc, err := src.SyscallConn()
	if err != nil {
		return 0, nil
	}
	dc, err := dst.SyscallConn()
	if err != nil {
		return 0, nil
	}
	var off int64
	var werr error
	ways := []func(int, int, *int64, int) (int, error){copyRange, sendFile}
	cerr := sc.Control(func(sfd uintptr) {
		werr = dc.Write(func(dfd uintptr) bool {
			for len(ways) > 0 && off < size {
				n, err := ways[0](int(dfd), int(sfd), &off, int(min(size-off, 1<<30)))
				switch {
				case n > 0:
				case errors.Is(err, unix.EAGAIN) && off > 0:
					return false // a full non-blocking pipe: wait until it drains
				case err != nil && off > 0 && !unsupported(err):
					werr = err // the output failed: say so
					return true
				default:
					ways = ways[1:] // not this way: the next, or the fallback
				}
			}
			return true
		})
	})
	if werr == nil {
		werr = cerr
	}
	if werr != nil && (off == 0 || unsupported(werr)) {
		return off, nil
	}
	return off, werr
}

func copyRange(dfd, sfd int, off *int64, n int) (int, error) {
	return unix.CopyFileRange(sfd, off, dfd, nil, n, 0)
}

func sendFile(dfd, sfd int, off *int64, n int) (int, error) {
	return unix.Sendfile(dfd, sfd, off, n)
}

// unsupported says an error means "not this way", not "the output failed".
func unsupported(err error) bool {
	for _, e := range []error{unix.EXDEV, unix.EINVAL, unix.ENOSYS, unix.EOPNOTSUPP, unix.EBADF, unix.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
