package server

import (
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// callSize is the most the next blocking call asks for: blockingChunk,
// or sendBufferCalls times the socket's send buffer when that is less
// (autotuning may have grown it since the last call).
func callSize(sock int) int64 {
	buf, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_SNDBUF)
	if err != nil || buf <= 0 {
		return blockingChunk
	}
	return min(blockingChunk, sendBufferCalls*int64(buf))
}

// raiseSendBuffer gives the socket the largest send buffer the system
// allows (net.core.wmem_max; the kernel doubles what is asked), up to
// maxSendBuffer, when that is more than both its buffer now and the most
// autotuning would give it (the third value of net.ipv4.tcp_wmem): half
// as many wakeups per GiB. The buffer then stays (no more autotuning),
// never below what autotuning could reach.
func raiseSendBuffer(sock int) {
	limit, ceiling := sendBufferLimits()
	cur, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_SNDBUF)
	if err != nil {
		return
	}
	if ask := sendBufferAsk(limit, ceiling, cur); ask > 0 {
		unix.SetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_SNDBUF, ask)
	}
}

// maxSendBuffer bounds what raiseSendBuffer asks for (the kernel then
// doubles it): the buffer stays with the connection, and one whose client
// stops reading holds all of it, times the connections.
const maxSendBuffer = 8 << 20

// sendBufferAsk is the send buffer to ask for given wmem_max (limit), the
// most autotuning gives (ceiling) and the buffer now (cur); 0: leave it.
func sendBufferAsk(limit, ceiling, cur int) int {
	ask := min(limit, maxSendBuffer)
	if ask <= 0 || 2*ask <= max(cur, ceiling) {
		return 0
	}
	return ask
}

// sendBufferLimits reads net.core.wmem_max and the third value of
// net.ipv4.tcp_wmem once; 0 when unknown.
var sendBufferLimits = sync.OnceValues(func() (limit, ceiling int) {
	return sysctlInt("/proc/sys/net/core/wmem_max", 0), sysctlInt("/proc/sys/net/ipv4/tcp_wmem", 2)
})

// sysctlInt returns the i-th number of the file at path, 0 when unknown.
func sysctlInt(path string, i int) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if i >= len(f) {
		return 0
	}
	n, _ := strconv.Atoi(f[i])
	return n
}

// copyBufs hold the bytes of a blocking send between file and socket.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// copyOut sends up to n bytes of the file src, from its offset, to sock
// with read(2) and write(2), as sendfile(2) with no offset would: the
// file's offset advances by the bytes sent, bytes read but not taken by
// the socket are given back (lseek). A short count without an error: the
// socket took no more (its send timeout) or the file ended.
func copyOut(sock, src, n int) (int, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	sent := 0
	for sent < n {
		r, err := unix.Read(src, buf[:min(len(buf), n-sent)])
		if err == unix.EINTR {
			continue
		}
		if err != nil || r == 0 {
			return sent, orNilAfter(sent, os.NewSyscallError("read", err))
		}
		w, err := writeOnce(sock, buf[:r])
		if w < r {
			if _, serr := unix.Seek(src, int64(w-r), io.SeekCurrent); serr != nil {
				return sent + w, os.NewSyscallError("lseek", serr)
			}
			return sent + w, orNilAfter(sent+w, err)
		}
		sent += r
	}
	return sent, nil
}

// writeOnce writes p to sock in one write(2), again after EINTR. A count
// short of len(p) without an error is a call the socket's send timeout
// ended after some bytes (a client that kept it waiting stallWait), and
// goes back to the caller as such: a short sendfile(2) did the same, and
// blockingLoop counts short calls.
func writeOnce(sock int, p []byte) (int, error) {
	for {
		socketWrites.Add(1)
		k, err := unix.Write(sock, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, err
		case err != nil:
			return 0, os.NewSyscallError("write", err)
		case k == 0 && len(p) > 0:
			return 0, io.ErrShortWrite
		}
		return k, nil
	}
}

// socketWrites counts writeOnce's write(2) calls, for tests.
var socketWrites atomic.Int64

// orNilAfter returns err when nothing was sent, else nil: the bytes sent
// count first, and the next call meets the error again.
func orNilAfter(sent int, err error) error {
	if sent > 0 {
		return nil
	}
	return err
}
