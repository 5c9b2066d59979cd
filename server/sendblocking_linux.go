package server

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// sendBlocking sends up to want bytes of f (want < 0: to its end) from
// its offset in blocking mode; it stops early, without an error, when the
// client is slow: a call sent nothing for stallWait (EAGAIN), or two calls
// in a row came back short. It returns io.EOF when the file
// ended first.
func (c *sendConn) sendBlocking(f *os.File, want int64) (int64, error) {
	fc, err := f.SyscallConn()
	if err != nil {
		return 0, nil
	}
	var sent int64
	var serr error
	c.sending.Store(true)
	defer c.sending.Store(false)
	werr := c.rc.Write(func(sock uintptr) bool {
		ferr := fc.Control(func(src uintptr) { sent, serr = c.blockingLoop(int(sock), int(src), want) })
		if ferr != nil && serr == nil {
			serr = ferr
		}
		return true
	})
	if werr != nil {
		return sent, c.opError("write", werr)
	}
	if serr != nil && serr != io.EOF {
		return sent, c.sendError(f, serr)
	}
	return sent, serr
}

// sendError names what failed in a blocking send: the file (read, lseek)
// as the file's error, the socket as the connection's write.
func (c *sendConn) sendError(f *os.File, err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) && (se.Syscall == "read" || se.Syscall == "lseek") {
		return &fs.PathError{Op: se.Syscall, Path: f.Name(), Err: se.Err}
	}
	return c.opError("write", err)
}

// blockingLoop switches the socket to blocking mode with a send timeout of
// stallWait, calls copyOut until want bytes went out, the file ended, the
// client stalled, the write deadline passed or Close began, and switches
// it back.
func (c *sendConn) blockingLoop(sock, src int, want int64) (int64, error) {
	tv := unix.NsecToTimeval(stallWait.Nanoseconds())
	if err := unix.SetsockoptTimeval(sock, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		return 0, nil
	}
	raiseSendBuffer(sock)
	if err := unix.SetNonblock(sock, false); err != nil {
		return 0, nil
	}
	defer unix.SetNonblock(sock, true)
	var sent int64
	short := 0
	for want < 0 || sent < want {
		if c.closing.Load() {
			return sent, net.ErrClosed
		}
		if d := c.deadline.Load(); d != 0 && time.Now().UnixNano() >= d {
			return sent, os.ErrDeadlineExceeded
		}
		chunk := callSize(sock)
		if want >= 0 {
			chunk = min(chunk, want-sent)
		}
		n, err := copyOut(sock, src, int(chunk))
		sendStats.calls.Add(1)
		if n > 0 {
			sent += int64(n)
			sendStats.bytes.Add(int64(n))
		}
		switch {
		case err == unix.EAGAIN:
			return sent, nil // stalled: the poller takes over
		case sent == 0 && (errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EISDIR)):
			return 0, nil // a file read(2) refuses: the poller's ReadFrom tries
		case err != nil:
			return sent, err
		case n == 0:
			return sent, io.EOF
		case int64(n) == chunk:
			short = 0
			continue
		}
		// A short count: a signal, or a client that kept a call waiting
		// for stallWait after some bytes. Twice in a row, the client is
		// slow: the poller takes over.
		if short++; short == 2 {
			return sent, nil
		}
	}
	return sent, nil
}

var _ io.ReaderFrom = (*sendConn)(nil)
