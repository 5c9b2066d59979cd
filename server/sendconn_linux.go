//go:build linux

package server

import (
	"errors"
	"io"
	"net"
	"os"
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
