package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingListener counts the connections open at once on the server side.
type countingListener struct {
	net.Listener
	mu        sync.Mutex
	open, max int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.max = max(l.max, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

// ReadFrom keeps the connection's own (sendfile) for net/http.
func (c *countedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c.Conn}, r)
}

// NetConn lets the limiter find the socket (socketCounter).
func (c *countedConn) NetConn() net.Conn { return c.Conn }

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.mu.Lock(); c.l.open--; c.l.mu.Unlock() })
	return c.Conn.Close()
}

// requestLog passes the access log's "request" lines to a channel.
type requestLog struct{ lines chan string }

func (h requestLog) Enabled(context.Context, slog.Level) bool { return true }
func (h requestLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h requestLog) WithGroup(string) slog.Handler            { return h }
func (h requestLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "request" {
		var b strings.Builder
		r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, "%s=%v ", a.Key, a.Value); return true })
		h.lines <- b.String()
	}
	return nil
}

// serveLn runs s.Serve on a counting loopback listener, whose connections
// are those Serve makes of a TCP listener's (wrapSendListener).
func serveLn(t *testing.T, s *Server) (string, *countingListener) {
	t.Helper()
	return serveLnTLS(t, s, nil)
}

// serveLnTLS is serveLn serving HTTPS with tlsConfig (nil: HTTP); the
// address returned still starts with http://.
func serveLnTLS(t *testing.T, s *Server, tlsConfig *tls.Config) (string, *countingListener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	cl := &countingListener{Listener: wrapSendListener(ln)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, cl, tlsConfig) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	return "http://" + ln.Addr().String(), cl
}

// dialServer connects to the server at base, with a receive buffer of
// readBuf bytes when readBuf > 0; the connection is closed when the test
// ends.
func dialServer(t *testing.T, base string, readBuf int) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	must(t, err)
	t.Cleanup(func() { c.Close() })
	tc := c.(*net.TCPConn)
	if readBuf > 0 {
		must(t, tc.SetReadBuffer(readBuf))
	}
	return tc
}

// TestSlowReaderDropped: a client that asks for a large file and reads
// nothing is dropped once no byte went out for the write timeout; its
// handler returns instead of holding a descriptor for good.
func TestSlowReaderDropped(t *testing.T) {
	for _, tc := range []struct {
		name   string
		settle time.Duration
	}{
		{"hashed as sent", time.Hour},
		{"trusted, one sendfile under a watch", 0},
	} {
		t.Run(tc.name, func(t *testing.T) { slowReaderDropped(t, tc.settle) })
	}
}

func slowReaderDropped(t *testing.T, settle time.Duration) {
	dir := t.TempDir()
	const size = 32 << 20
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, size), 0o644))
	logs := requestLog{lines: make(chan string, 16)}
	s, err := New(dir, WithLogger(slog.New(logs)), WithWriteTimeout(300*time.Millisecond), WithSettle(settle))
	must(t, err)

	base, _ := serveLn(t, s)
	ticks := watchTicks.Load()
	conn := dialServer(t, base, 4<<10)
	fmt.Fprintf(conn, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case line := <-logs.lines:
		var n int64
		if i := strings.Index(line, "bytes="); i < 0 {
			t.Fatalf("access log line without bytes: %s", line)
		} else {
			fmt.Sscan(line[i+len("bytes="):], &n)
		}
		if n >= size {
			t.Errorf("the handler sent all %d bytes to a client that read none: %s", n, line)
		}
		// Settled: the digests are trusted, the body goes out in one
		// sendfile, and the watch over it is what dropped the client.
		if settle == 0 && watchTicks.Load() == ticks {
			t.Error("the trusted file was not sent under the watch")
		}
	case <-time.After(60 * time.Second): // a safety net, not a measure
		t.Fatal("the handler still writes to a client that reads nothing")
	}
}

// TestMaxConns: beyond the cap, a new connection closes the longest-idle
// keep-alive one; no more than the cap (plus the one waiting for its
// slot) are open, and every client is answered.
func TestMaxConns(t *testing.T) {
	s, err := New(fixture(t), WithMaxConns(3))
	must(t, err)
	base, cl := serveLn(t, s)
	var clients []*http.Client
	for i := 0; i < 10; i++ {
		c := &http.Client{Transport: &http.Transport{}} // one keep-alive connection each
		clients = append(clients, c)
		resp, err := c.Get(base + "/hello.json")
		must(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != hello {
			t.Fatalf("client %d: %d %q", i, resp.StatusCode, b)
		}
	}
	cl.mu.Lock()
	peak := cl.max
	cl.mu.Unlock()
	if peak > 4 {
		t.Errorf("%d connections open at once, want at most 3 (+1 waiting)", peak)
	}
	for _, c := range clients {
		c.CloseIdleConnections()
	}
}

// TestMaxConnsEvictsStalled: when every slot is held by a client that
// reads nothing (and no write timeout would ever free it), a new client
// is still served: the connection stalled longest in a write is closed.
func TestMaxConnsEvictsStalled(t *testing.T) {
	for _, counter := range counters {
		t.Run(counter.name, func(t *testing.T) {
			setSocketCounter(t, counter.get)
			setStallMin(t, 250*time.Millisecond)
			evictsStalled(t)
		})
	}
}

func evictsStalled(t *testing.T) {
	base := fullServer(t, 2)
	for range 2 {
		c := dialServer(t, base, 4<<10)
		fmt.Fprintf(c, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	client := &http.Client{Timeout: 60 * time.Second} // a safety net, not a measure
	resp, err := client.Get(base + "/hello.json")
	if err != nil {
		t.Fatalf("a new client behind two stalled ones: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != hello {
		t.Errorf("got %d %q", resp.StatusCode, b)
	}
}

// fullServer serves the fixture and a 32 MiB big.bin with --max-conns n and
// no write timeout (nothing but the limiter frees a slot), and returns its
// base URL.
func fullServer(t *testing.T, n int) string {
	dir := fixture(t)
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 32<<20), 0o644))
	s, err := New(dir, WithMaxConns(n), WithWriteTimeout(0))
	must(t, err)
	base, _ := serveLn(t, s)
	return base
}

// TestSlowUploadDropped: a PUT whose content stops coming is dropped once
// no byte came for the timeout; its handler returns (and, under
// --max-conns, gives its slot back) instead of waiting for good.
func TestSlowUploadDropped(t *testing.T) {
	logs := requestLog{lines: make(chan string, 16)}
	s, err := New(t.TempDir(), WithWritable(), WithLogger(slog.New(logs)), WithWriteTimeout(300*time.Millisecond))
	must(t, err)
	base, _ := serveLn(t, s)
	conn := dialServer(t, base, 0)
	fmt.Fprintf(conn, "PUT /up.bin HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789")
	select {
	case line := <-logs.lines:
		if strings.Contains(line, "status=20") {
			t.Errorf("an upload that stopped was stored: %s", line)
		}
	case <-time.After(60 * time.Second): // a safety net, not a measure
		t.Fatal("the handler still waits for an upload that stopped")
	}
}
