//go:build linux

package server

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Go's own sendfile runs on a non-blocking socket: every time the socket's
// buffer is full (about 700 times for 1 GiB over loopback) the goroutine
// parks, the runtime's poller wakes it, and other threads of the runtime
// wake and spin with it: twice nginx's CPU time for the same bytes and
// three times its context switches, some of them taking the core the
// client runs on. A sendConn sends a file in blocking mode instead, the
// way a thread-per-connection server does: the kernel sleeps and wakes the
// one thread in place. It copies with read(2) and write(2) through a 1 MiB
// buffer, not sendfile(2): sendfile splices the file's pages into the
// socket one 4 KiB page at a time, and measured over loopback on ext4 the
// copy sent a 256 MiB file 1.5 times as fast with two thirds of the
// server's CPU time (bench/serve.sh).
//
// Only a client that keeps up gets it: each call waits at most stallWait
// for the client to take bytes (SO_SNDTIMEO), and a send that waited
// longer goes on through Go's poller for the rest, with its deadlines, so
// that a slow or stalled client never holds a thread. The socket's reads
// never depend on its blocking mode (recvfrom with MSG_DONTWAIT under the
// poller), since net/http reads in the background while the handler
// sends; Close shuts the socket down first, which ends a blocking call
// at once.

// stallWait is how long a blocking send waits for the client to take
// bytes before the send moves to the poller.
const stallWait = 100 * time.Millisecond

// blockingChunk is the most one blocking call sends (see also
// sendBufferCalls): between calls the write deadline and Close are looked
// at.
const blockingChunk = 64 << 20

// sendBufferCalls bounds a blocking call to this many socket buffers'
// worth. A call returns only when all its bytes went out or the client
// kept it waiting stallWait at once; a client that frees half its buffer
// just within each stallWait would otherwise keep a 64 MiB call (and its
// thread) going for minutes with a small buffer, past the write deadline
// and the progress watch, which sees the file's offset move only when a
// call returns. With the bound a call lasts at most about
// 2*sendBufferCalls*stallWait.
const sendBufferCalls = 4

// blockingMin is the smallest file sent in blocking mode: below it, the
// poller's few round trips cost less than the mode switches.
const blockingMin = 1 << 20

// blockingSlots bounds the threads blocked in a send at once (and the
// copy buffers held); a send beyond it uses the poller.
var blockingSlots = make(chan struct{}, 16)

// sendStats counts the blocking sends (tests): calls of copyOut in
// blocking mode, sends that moved to the poller, bytes sent in blocking
// mode.
var sendStats struct {
	calls, fallbacks, bytes atomic.Int64
}

// sendListener wraps the TCP connections it accepts in sendConns.
type sendListener struct{ net.Listener }

func wrapSendListener(ln net.Listener) net.Listener { return sendListener{ln} }

func (l sendListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	sc := &sendConn{Conn: tc, tcp: tc, rc: rc}
	sc.readFn = sc.readOnce
	return sc, nil
}

// sendConn is an accepted TCP connection whose ReadFrom sends files in
// blocking mode. It embeds net.Conn, not *net.TCPConn: a method promoted
// from the TCPConn (WriteTo, for one) would read the socket in whatever
// mode it is in.
type sendConn struct {
	net.Conn
	tcp *net.TCPConn
	rc  syscall.RawConn

	deadline atomic.Int64 // the write deadline, unix nanoseconds; 0: none
	sending  atomic.Bool  // a blocking sendfile may be under way
	closing  atomic.Bool

	rmu    sync.Mutex // one Read at a time: the fields below
	rbuf   []byte
	rn     int
	rerr   error
	readFn func(uintptr) bool // readOnce, made once
}

// Read reads with MSG_DONTWAIT, so that a read started while the socket is
// in blocking mode still returns at once when there is nothing to read.
// Reads are one at a time anyway (the descriptor's read lock): the buffer
// and results live in the sendConn, so a read allocates nothing.
func (c *sendConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.rbuf = p
	rerr := c.rc.Read(c.readFn)
	n, err := c.rn, c.rerr
	c.rbuf, c.rerr = nil, nil
	switch {
	case rerr != nil:
		return 0, c.opError("read", rerr)
	case err != nil:
		return 0, c.opError("read", os.NewSyscallError("recvfrom", err))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// readOnce is what the poller calls while a Read waits: false asks it to
// wait for the socket to be readable.
func (c *sendConn) readOnce(fd uintptr) bool {
	for {
		c.rn, c.rerr = recvNoWait(int(fd), c.rbuf)
		if c.rerr != unix.EINTR {
			return c.rerr != unix.EAGAIN
		}
	}
}

// recvNoWait is recvfrom(2) with MSG_DONTWAIT and no address.
func recvNoWait(fd int, p []byte) (int, error) {
	n, _, e := unix.Syscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		unix.MSG_DONTWAIT, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (c *sendConn) opError(op string, err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		oe.Op = op
		return oe
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

func (c *sendConn) SetDeadline(t time.Time) error {
	c.noteDeadline(t)
	return c.Conn.SetDeadline(t)
}

func (c *sendConn) SetWriteDeadline(t time.Time) error {
	c.noteDeadline(t)
	return c.Conn.SetWriteDeadline(t)
}

func (c *sendConn) noteDeadline(t time.Time) {
	if t.IsZero() {
		c.deadline.Store(0)
	} else {
		c.deadline.Store(t.UnixNano())
	}
}

// CloseWrite half-closes the connection (net/http's lingering close).
func (c *sendConn) CloseWrite() error { return c.tcp.CloseWrite() }

// Close ends a blocking sendfile under way (shutdown wakes it) before
// closing, which would otherwise wait for the call to return.
func (c *sendConn) Close() error {
	c.closing.Store(true)
	if c.sending.Load() {
		c.rc.Control(func(fd uintptr) { unix.Shutdown(int(fd), unix.SHUT_RDWR) })
	}
	return c.Conn.Close()
}

// ReadFrom sends a file (or a LimitedReader of one, as net/http passes it)
// in blocking mode while the client keeps up, the rest through the poller;
// any other source goes to the TCPConn's ReadFrom.
func (c *sendConn) ReadFrom(r io.Reader) (int64, error) {
	f, lr := fileSource(r)
	if f == nil || (lr != nil && lr.N < blockingMin) {
		return c.tcp.ReadFrom(r)
	}
	select {
	case blockingSlots <- struct{}{}:
	default:
		return c.tcp.ReadFrom(r)
	}
	want := int64(-1) // to the end of the file
	if lr != nil {
		want = lr.N
	}
	n, err := c.sendBlocking(f, want)
	<-blockingSlots
	if lr != nil {
		lr.N -= n
	}
	switch {
	case err == io.EOF:
		return n, nil // the file ended
	case err != nil || n == want:
		return n, err
	}
	sendStats.fallbacks.Add(1)
	m, err := c.tcp.ReadFrom(r)
	return n + m, err
}

// fileSource returns the file r reads from, and r as a LimitedReader when
// it is one.
func fileSource(r io.Reader) (*os.File, *io.LimitedReader) {
	lr, _ := r.(*io.LimitedReader)
	if lr != nil {
		r = lr.R
	}
	f, _ := r.(*os.File)
	if f == nil {
		return nil, nil
	}
	return f, lr
}

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
