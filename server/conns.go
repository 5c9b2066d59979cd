package server

import (
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// connLimiter caps the connections served at once. A connection accepted
// while all slots are taken makes room by closing, in this order, the
// connection idle (between requests) longest, or the one stalled longest
// in a write, if for at least stallMin: a write is stalled while its bytes
// move slower than minRate (a client that takes none, or trickles a few
// bytes a second to keep its slot), however long it has run; otherwise it
// waits for a slot. Together with the write-progress deadline this bounds
// the descriptors and memory that clients which never read their
// responses can hold, and keeps them from starving new clients.
type connLimiter struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once

	mu    sync.Mutex
	conns map[*limitedConn]struct{}
}

// stallMin is how long a write must have moved no bytes (or fewer than
// minRate a second) before the connection may be closed to make room for
// a new one (a var: tests).
var stallMin = time.Second

// minRate is the bytes a second a write must move, on average since the
// limiter last saw it progress, to count as moving (a var: tests): 1 KiB,
// far below any real link, far above a trickle that only holds a slot.
var minRate int64 = 1 << 10

// roomLooks counts makeRoom's looks for room (tests).
var roomLooks atomic.Int64

func newConnLimiter(ln net.Listener, n int) *connLimiter {
	return &connLimiter{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{}),
		conns: map[*limitedConn]struct{}{}}
}

// Accept returns the next connection once it has a slot.
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if !l.acquire() {
		c.Close()
		return nil, net.ErrClosed
	}
	lc := &limitedConn{Conn: c, acked: socketCounter(c)}
	lc.release = sync.OnceFunc(func() {
		l.mu.Lock()
		delete(l.conns, lc)
		l.mu.Unlock()
		<-l.slots
	})
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	return lc, nil
}

// acquire takes a slot, making room when it can; false once closed.
func (l *connLimiter) acquire() bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	tick := time.NewTicker(stallMin / 4)
	defer tick.Stop()
	for {
		l.makeRoom()
		select {
		case l.slots <- struct{}{}:
			return true
		case <-l.done:
			return false
		case <-tick.C:
		}
	}
}

// Close stops Accept, also while it waits for a slot.
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// track is the http.Server's ConnState hook: it notes since when a
// connection is idle (TLS connections are found through NetConn).
func (l *connLimiter) track(c net.Conn, st http.ConnState) {
	if nc, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = nc.NetConn()
	}
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	if st == http.StateIdle {
		lc.idleSince.Store(time.Now().UnixNano())
	} else {
		lc.idleSince.Store(0)
	}
}

// makeRoom closes the connection idle longest, else the one stalled
// longest in a write (for at least stallMin), if any.
func (l *connLimiter) makeRoom() {
	roomLooks.Add(1)
	now := time.Now().UnixNano()
	l.mu.Lock()
	idle, idleAt := oldest(l.conns, func(c *limitedConn) int64 { return c.idleSince.Load() })
	stalled, stalledAt := oldest(l.conns, func(c *limitedConn) int64 { return c.stalledSince(now) })
	l.mu.Unlock()
	switch {
	case idleAt != 0:
		idle.Close()
	case stalledAt != 0 && now-stalledAt >= int64(stallMin):
		stalled.Close()
	}
}

// oldest returns the connection with the smallest non-zero time.
func oldest(conns map[*limitedConn]struct{}, at func(*limitedConn) int64) (*limitedConn, int64) {
	var best *limitedConn
	var bestAt int64
	for c := range conns {
		if t := at(c); t != 0 && (bestAt == 0 || t < bestAt) {
			best, bestAt = c, t
		}
	}
	return best, bestAt
}

// limitedConn gives its slot back when closed and notes since when its
// current write has moved no bytes. The bytes moved are those the client
// acknowledged (socketCounter), which every way of sending moves alike:
// Write, sendfile (ReadFrom, also sendConn's blocking calls), TLS records.
// Without that count, they are those handed to the connection, in writes
// of at most progressChunk. ReadFrom and CloseWrite reach the
// connection's own, so net/http keeps sendfile and its lingering close.
type limitedConn struct {
	net.Conn
	release    func()
	acked      func() (int64, bool) // nil: count written instead
	written    atomic.Int64         // bytes handed to Conn (without acked)
	writeSince atomic.Int64         // unix nanoseconds; 0: not writing
	idleSince  atomic.Int64         // unix nanoseconds; 0: not idle

	seen   int64 // the bytes moved when the limiter last saw progress (its mu)
	seenAt int64 // when it last saw progress (stalledSince); 0: never looked
}

// stalledSince returns since when c's current write has not progressed,
// as far as the limiter's looks tell (the first look sees progress); 0
// when c is not writing. It progresses when it moved, since it last did,
// at least minRate bytes a second of the time between. The limiter's mu
// is held.
func (c *limitedConn) stalledSince(now int64) int64 {
	since := c.writeSince.Load()
	if since == 0 {
		return 0
	}
	if moved, ok := c.moved(); ok && (c.seenAt == 0 || progressed(moved-c.seen, now-c.seenAt)) {
		c.seen, c.seenAt = moved, now
	}
	return max(since, c.seenAt)
}

// progressed says n bytes moved in d nanoseconds are progress: some, and
// at least minRate a second.
func progressed(n, d int64) bool {
	return n > 0 && n >= minRate*(d/int64(time.Millisecond))/1000
}

// moved returns the bytes moved so far; false when they cannot be read.
func (c *limitedConn) moved() (int64, bool) {
	if c.acked != nil {
		return c.acked()
	}
	return c.written.Load(), true
}

func (c *limitedConn) Write(p []byte) (int, error) {
	c.writeSince.Store(time.Now().UnixNano())
	defer c.writeSince.Store(0)
	if c.acked != nil {
		return c.Conn.Write(p)
	}
	n := 0
	for len(p) > 0 {
		m, err := c.Conn.Write(p[:min(len(p), progressChunk)])
		n += m
		c.written.Add(int64(m))
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}

func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	c.writeSince.Store(time.Now().UnixNano())
	defer c.writeSince.Store(0)
	rf, ok := c.Conn.(io.ReaderFrom)
	switch {
	case !ok:
		return io.Copy(writerOnly{c}, r)
	case c.acked != nil:
		return rf.ReadFrom(r)
	}
	return readFromChunks(countedReaderFrom{rf, &c.written}, r, progressChunk, nil)
}

// countedReaderFrom adds the bytes its ReadFrom moved to n.
type countedReaderFrom struct {
	rf io.ReaderFrom
	n  *atomic.Int64
}

func (c countedReaderFrom) ReadFrom(r io.Reader) (int64, error) {
	m, err := c.rf.ReadFrom(r)
	c.n.Add(m)
	return m, err
}

// CloseWrite half-closes a TCP connection.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

var _ io.ReaderFrom = (*limitedConn)(nil) // net/http's sendfile path
