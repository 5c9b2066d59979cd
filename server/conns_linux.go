//go:build linux

package server

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// socketCounter returns a function reading how many bytes the client of
// c's TCP socket has acknowledged (tcpi_bytes_acked), or nil when c has
// none to ask (a test may replace it); wrappers are seen through with
// their NetConn method. It reads the socket's state, not
// its data: a sendfile under way, in blocking mode or not, goes on.
var socketCounter = ackedCounter

func ackedCounter(c net.Conn) func() (int64, bool) {
	for {
		nc, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = nc.NetConn()
	}
	var rc syscall.RawConn
	switch c := c.(type) {
	case *sendConn:
		rc = c.rc
	case syscall.Conn:
		var err error
		if rc, err = c.SyscallConn(); err != nil {
			return nil
		}
	default:
		return nil
	}
	read := func() (int64, bool) {
		var n int64
		var gerr error
		err := rc.Control(func(fd uintptr) {
			var info *unix.TCPInfo
			if info, gerr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); gerr == nil {
				n = int64(info.Bytes_acked)
			}
		})
		return n, err == nil && gerr == nil
	}
	if _, ok := read(); !ok {
		return nil // not TCP
	}
	return read
}
