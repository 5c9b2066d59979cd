package fetch

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// releaseChunk is how much kernelRelease copies per call, and so how much
// of the spool it lets stand before punching it out.
const releaseChunk = 64 << 20

// kernelRelease copies the first size bytes of src (a spool) to dst's current position
// without passing them through user space: copy_file_range(2) when dst is a
// regular file (on the same filesystem: a reflink or an in-kernel copy),
// else sendfile(2) (a pipe, a socket, a file elsewhere). It returns how
// many bytes it copied; an error only when dst failed after some bytes
// (a closed pipe, a full disk). Anything it cannot do (O_APPEND, an old
// kernel, a non-blocking fd that would block) it leaves to the caller's
// portable copy, from where it stopped.
//
// With mayPunch (the caller is the spool's last reader and nobody else can
// open it), every chunk copied into dst is punched out of the spool
// (fallocate(2), where the filesystem can), so the body takes about one
// copy's room on the disk (or in memory, on tmpfs) while it is released,
// not two, and the pages freed are those the copy fills next. Then only a
// copy that leaves dst its own bytes is used: copy_file_range, or sendfile
// into a regular file. Into a pipe or a socket sendfile lends the spool's
// pages, which a reader may splice on (pv, a socket's send queue) and keep
// after the pipe is empty, and a punch may zero the part of a large folio
// it covers in place: those bytes, released as verified, would change. So
// such a dst gets the caller's portable copy, punched behind (punchFile).
// Not a spool in the cache: it may have become a cached version
// (cache.PutVerified) that other processes read after their check, even
// once its name is gone (replaced, evicted).
func kernelRelease(dst, src *os.File, size int64, mayPunch bool) (int64, error) {
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
	ways := []way{{copyRange, mayPunch}}
	if !mayPunch || regular(dst) {
		ways = append(ways, way{sendFile, mayPunch})
	}
	cerr := sc.Control(func(sfd uintptr) {
		werr = dc.Write(func(dfd uintptr) bool {
			for len(ways) > 0 && off < size {
				from := off
				n, err := ways[0].copy(int(dfd), int(sfd), &off, int(min(size-off, releaseChunk)))
				switch {
				case n > 0 && ways[0].punch:
					punch(int(sfd), from, off-from)
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

// A way copies from a file at *off to dfd, moving *off; punch says the
// bytes it copied are dst's own when it returns, so the source may go.
type way struct {
	copy  func(dfd, sfd int, off *int64, n int) (int, error)
	punch bool
}

// regular says f is a regular file.
func regular(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// punchFile frees the bytes [off, off+n) of f (see punch).
func punchFile(f *os.File, off, n int64) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { punch(int(fd), off, n) })
	}
}

// punch frees the bytes [off, off+n) of the file fd, keeping its size;
// a filesystem that cannot only keeps them.
func punch(fd int, off, n int64) {
	unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
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
