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
	idle  map[net.Conn]time.Time // idle since
	conns map[*limitedConn]struct{}
}

// stallMin is how long a write must have been blocked before the
// connection may be closed to make room for a new one.
const stallMin = time.Second

func newConnLimiter(ln net.Listener, n int) *connLimiter {
	return &connLimiter{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{}),
		idle: map[net.Conn]time.Time{}, conns: map[*limitedConn]struct{}{}}
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

// track is the http.Server's ConnState hook: it keeps the idle set.
func (l *connLimiter) track(c net.Conn, st http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st == http.StateIdle {
		l.idle[c] = time.Now()
	} else {
		delete(l.idle, c)
	}
}

// makeRoom closes the connection idle longest, else the one stalled
// longest in a write, if any.
func (l *connLimiter) makeRoom() {
	l.mu.Lock()
	var victim net.Conn
	var since time.Time
	for c, t := range l.idle {
		if victim == nil || t.Before(since) {
			victim, since = c, t
		}
	}
	if victim != nil {
		delete(l.idle, victim)
	} else {
		var oldest int64
		for c := range l.conns {
			if w := c.writeSince.Load(); w != 0 && (oldest == 0 || w < oldest) {
				victim, oldest = c, w
			}
		}
		if oldest == 0 || time.Since(time.Unix(0, oldest)) < stallMin {
			victim = nil
		}
	}
	l.mu.Unlock()
	if victim != nil {
		victim.Close()
	}
}

// limitedConn gives its slot back when closed and notes since when its
// current write has been blocked. ReadFrom and CloseWrite reach the
// connection's own, so net/http keeps sendfile and its lingering close.
type limitedConn struct {
	net.Conn
	release    func()
	writeSince atomic.Int64 // unix nanoseconds; 0: not writing
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
