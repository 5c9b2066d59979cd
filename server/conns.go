package server

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimiter caps the connections served at once. A connection accepted
// while all slots are taken first makes room by closing the connection
// that has been idle (between requests) longest; when none is idle it
// waits for a slot, in the kernel's backlog as far as the client sees.
// Together with the write-progress deadline this bounds the descriptors
// and memory that clients which never read their responses can hold.
type connLimiter struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once

	mu   sync.Mutex
	idle map[net.Conn]time.Time // idle since
}

func newConnLimiter(ln net.Listener, n int) *connLimiter {
	return &connLimiter{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{}),
		idle: map[net.Conn]time.Time{}}
}

// Accept returns the next connection once it has a slot.
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	select {
	case l.slots <- struct{}{}:
	default:
		l.closeOldestIdle()
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
	return &limitedConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
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

// closeOldestIdle closes the connection idle longest, if any.
func (l *connLimiter) closeOldestIdle() {
	l.mu.Lock()
	var oldest net.Conn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	if oldest != nil {
		oldest.Close()
	}
}

// limitedConn gives its slot back when closed.
type limitedConn struct {
	net.Conn
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
