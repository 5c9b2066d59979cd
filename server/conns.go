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
// connection idle (between requests) longest, or the one whose current
// write has been blocked longest, if for at least stallMin; otherwise it
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

// stallMin is how long a write must have been blocked before the
// connection may be closed to make room for a new one (a var: tests).
var stallMin = time.Second

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
	lc := &limitedConn{Conn: c}
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
	l.mu.Lock()
	idle, idleAt := oldest(l.conns, func(c *limitedConn) int64 { return c.idleSince.Load() })
	stalled, stalledAt := oldest(l.conns, func(c *limitedConn) int64 { return c.writeSince.Load() })
	l.mu.Unlock()
	switch {
	case idleAt != 0:
		idle.Close()
	case stalledAt != 0 && time.Since(time.Unix(0, stalledAt)) >= stallMin:
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
// current write has been blocked. ReadFrom and CloseWrite reach the
// connection's own, so net/http keeps sendfile and its lingering close.
type limitedConn struct {
	net.Conn
	release    func()
	writeSince atomic.Int64 // unix nanoseconds; 0: not writing
	idleSince  atomic.Int64 // unix nanoseconds; 0: not idle
}

func (c *limitedConn) Write(p []byte) (int, error) {
	c.writeSince.Store(time.Now().UnixNano())
	defer c.writeSince.Store(0)
	return c.Conn.Write(p)
}

func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	c.writeSince.Store(time.Now().UnixNano())
	defer c.writeSince.Store(0)
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c.Conn}, r)
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
