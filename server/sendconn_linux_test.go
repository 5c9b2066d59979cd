//go:build linux

package server

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// largeFixture writes a file of size random bytes as big.bin in a new
// directory.
func largeFixture(t *testing.T, size int) (dir string, data []byte) {
	t.Helper()
	dir = t.TempDir()
	data = make([]byte, size)
	rand.Read(data)
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), data, 0o644))
	return dir, data
}

// sendConnPair accepts a loopback connection through wrapSendListener:
// the client's end and the server's sendConn, both closed when the test
// ends.
func sendConnPair(t *testing.T) (net.Conn, *sendConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	must(t, err)
	t.Cleanup(func() { client.Close() })
	c, err := wrapSendListener(ln).Accept()
	must(t, err)
	t.Cleanup(func() { c.Close() })
	sc, ok := c.(*sendConn)
	if !ok {
		t.Fatalf("accepted %T, want *sendConn", c)
	}
	return client, sc
}

// httpSniffLen is what net/http's response.ReadFrom copies through its
// buffer, with the header, before it hands the rest to the connection's
// ReadFrom; the guard sends the last byte itself.
const httpSniffLen = 512

// sendCounts is a snapshot of sendStats.
type sendCounts struct{ calls, fallbacks, bytes int64 }

func readSendStats() sendCounts {
	return sendCounts{sendStats.calls.Load(), sendStats.fallbacks.Load(), sendStats.bytes.Load()}
}

// TestLargeFileOneBlockingSend: a cached large file leaves in a few
// blocking sendfile calls (one per blockingChunk or sendBufferCalls
// buffers), not in one call per socket buffer's worth through the poller;
// its bytes are the file's, over a keep-alive connection that then answers
// the next requests (net/http reads it in the background while the socket
// is in blocking mode).
func TestLargeFileOneBlockingSend(t *testing.T) {
	const size = 24 << 20
	dir, data := largeFixture(t, size)
	s, err := New(dir, WithSettle(0))
	must(t, err)
	base, cl := serveLn(t, s)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for i := range 3 {
		before := readSendStats()
		resp, err := client.Get(base + "/big.bin")
		must(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		must(t, err)
		if resp.StatusCode != 200 || !bytes.Equal(body, data) {
			t.Fatalf("GET %d: status %d, %d bytes, want 200 and the file's %d bytes", i, resp.StatusCode, len(body), size)
		}
		d := readSendStats()
		calls, sent := d.calls-before.calls, d.bytes-before.bytes
		if calls < 1 {
			t.Fatalf("GET %d: no blocking sendfile call", i)
		}
		// A loaded machine may stall the client past stallWait: the
		// rest then goes through the poller (a fallback).
		// A call asks for at most sendBufferCalls send buffers, and an
		// autotuned buffer over loopback starts above 1 MiB.
		most := int64(size/min(blockingChunk, sendBufferCalls<<20) + 2)
		if want := int64(size - httpSniffLen - 1); d.fallbacks == before.fallbacks && (sent != want || calls > most) {
			t.Errorf("GET %d: %d bytes in %d blocking calls, want %d bytes in at most %d",
				i, sent, calls, want, most)
		}
	}
	resp, err := client.Get(base + "/hello.json")
	must(t, err)
	resp.Body.Close()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.max != 1 {
		t.Errorf("%d connections, want the one keep-alive connection for every request", cl.max)
	}
}

// TestBlockingSendStalledClient: a client that reads nothing makes the
// blocking call give up after stallWait (EAGAIN); the poller takes over
// and the write timeout drops the client, as before.
func TestBlockingSendStalledClient(t *testing.T) {
	const size = 32 << 20
	dir, _ := largeFixture(t, size)
	logs := requestLog{lines: make(chan string, 16)}
	s, err := New(dir, WithLogger(slog.New(logs)), WithWriteTimeout(300*time.Millisecond), WithSettle(0))
	must(t, err)
	base, _ := serveLn(t, s)
	before := readSendStats()
	conn := dialServer(t, base, 4<<10)
	fmt.Fprintf(conn, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case line := <-logs.lines:
		if !strings.Contains(line, "bytes=") || strings.Contains(line, fmt.Sprintf("bytes=%d ", size)) {
			t.Errorf("the stalled client got the whole file: %s", line)
		}
	case <-time.After(60 * time.Second): // a safety net, not a measure
		t.Fatal("the handler still writes to a client that reads nothing")
	}
	d := readSendStats()
	if d.calls == before.calls || d.fallbacks == before.fallbacks {
		t.Errorf("blocking calls %d, fallbacks %d: want the send started blocking, then moved to the poller",
			d.calls-before.calls, d.fallbacks-before.fallbacks)
	}
}

// TestSendConnCloseEndsBlockingSend: Close during a send to a client that
// reads slowly returns, and the send ends with an error (shutdown wakes a
// blocking call), instead of waiting for the client.
func TestSendConnCloseEndsBlockingSend(t *testing.T) {
	const size = 64 << 20
	dir, _ := largeFixture(t, size)
	f, err := os.Open(filepath.Join(dir, "big.bin"))
	must(t, err)
	defer f.Close()
	client, sc := sendConnPair(t)
	go func() { // a slow reader: 4 KiB at a time
		r := bufio.NewReaderSize(client, 4<<10)
		buf := make([]byte, 4<<10)
		for {
			if _, err := r.Read(buf); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	done := make(chan error, 1)
	before := readSendStats()
	go func() {
		_, err := sc.ReadFrom(&io.LimitedReader{R: f, N: size})
		done <- err
	}()
	for readSendStats().calls == before.calls && !sc.sending.Load() {
		time.Sleep(time.Millisecond)
	}
	must(t, sc.Close())
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("the send of %d bytes to a slow reader ended without an error after Close", size)
		}
	case <-time.After(60 * time.Second): // a safety net, not a measure
		t.Fatal("the send goes on after Close")
	}
}

// TestRaiseSendBuffer: a blocking send's socket gets the system's largest
// send buffer when that is more than autotuning could give, and never a
// smaller one than it had.
func TestRaiseSendBuffer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	must(t, err)
	defer c.Close()
	rc, err := c.(*net.TCPConn).SyscallConn()
	must(t, err)
	limit, ceiling := sendBufferLimits()
	rc.Control(func(fd uintptr) {
		before, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
		must(t, err)
		raiseSendBuffer(int(fd))
		after, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
		must(t, err)
		want := before
		if ask := min(limit, maxSendBuffer); ask > 0 && 2*ask > max(before, ceiling) {
			want = 2 * ask
		}
		if after != want || after < before {
			t.Errorf("send buffer %d after raiseSendBuffer, want %d (it was %d; wmem_max %d, tcp_wmem max %d)",
				after, want, before, limit, ceiling)
		}
	})
}

// TestSendConnRead: a sendConn reads as a TCPConn does: the bytes sent,
// a timeout error that says so once the read deadline passed, io.EOF once
// the peer closed.
func TestSendConnRead(t *testing.T) {
	client, c := sendConnPair(t)
	must(t, c.SetReadDeadline(time.Now().Add(-time.Second)))
	var ne net.Error
	if _, err := c.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	must(t, c.SetReadDeadline(time.Time{}))
	fmt.Fprint(client, "abc")
	client.Close()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "abc" {
		t.Errorf("read %q, %v; want \"abc\" and io.EOF", got, err)
	}
}

// TestBlockingCallBoundedBySendBuffer: one blocking sendfile asks for at
// most sendBufferCalls socket buffers' worth. A call returns only when
// its count went out or the client kept it waiting stallWait at once, so
// a bigger call to a client that frees half its small buffer just within
// each stallWait would hold the thread past the write deadline and Close's
// checks, and keep the file's offset (the progress watch's measure) still.
func TestBlockingCallBoundedBySendBuffer(t *testing.T) {
	const size = 8 << 20
	dir, data := largeFixture(t, size)
	f, err := os.Open(filepath.Join(dir, "big.bin"))
	must(t, err)
	defer f.Close()
	saved := sendBufferLimits
	sendBufferLimits = func() (int, int) { return 0, 0 } // keep the small buffer
	defer func() { sendBufferLimits = saved }()
	client, sc := sendConnPair(t)
	var buf int
	sc.rc.Control(func(fd uintptr) {
		must(t, unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF, 64<<10))
		buf, err = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
		must(t, err)
	})
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(client)
		got <- b
	}()
	before := readSendStats()
	n, err := sc.ReadFrom(&io.LimitedReader{R: f, N: size})
	if err != nil || n != size {
		t.Fatalf("sent %d bytes, %v; want %d", n, err, size)
	}
	sc.Close()
	if b := <-got; !bytes.Equal(b, data) {
		t.Fatalf("the client got %d bytes, not the file's %d", len(b), size)
	}
	d := readSendStats()
	calls, sent := d.calls-before.calls, d.bytes-before.bytes
	if limit := int64(sendBufferCalls * buf); d.fallbacks == before.fallbacks && calls < sent/limit {
		t.Errorf("%d bytes in %d blocking calls with a %d-byte send buffer, want at most %d bytes a call",
			sent, calls, buf, limit)
	}
}

// TestSendBufferAskBounded: a system whose net.core.wmem_max is huge (some
// tuning guides set 2 GiB) gives each connection sent in blocking mode at
// most maxSendBuffer to ask for, not wmem_max: the buffer stays with the
// connection, and a client that stops reading pins all of it (page cache
// the kernel cannot free, against tcp_mem for every socket), times
// the connections.
func TestSendBufferAskBounded(t *testing.T) {
	for _, c := range []struct{ limit, ceiling, cur, want int }{
		{4 << 20, 4 << 20, 2 << 20, 4 << 20},         // this machine: ask wmem_max
		{212992, 4 << 20, 1 << 20, 0},                // autotuning may reach more
		{1<<31 - 1, 4 << 20, 1 << 20, maxSendBuffer}, // huge wmem_max
		{0, 4 << 20, 1 << 20, 0},                     // unknown
		{1<<31 - 1, 64 << 20, 1 << 20, 0},            // autotuning reaches more than the bound
	} {
		if got := sendBufferAsk(c.limit, c.ceiling, c.cur); got != c.want {
			t.Errorf("sendBufferAsk(wmem_max %d, tcp_wmem max %d, now %d) = %d, want %d",
				c.limit, c.ceiling, c.cur, got, c.want)
		}
	}
}

// A blocking send names what failed: a file that cannot be read is the
// file's error (its name, read), not the connection's; a client gone is
// the connection's write, not a "sendfile".
func TestBlockingSendNamesTheFailure(t *testing.T) {
	name := filepath.Join(t.TempDir(), "body")
	must(t, os.WriteFile(name, make([]byte, 1<<20), 0o644))
	t.Run("file", func(t *testing.T) {
		_, c := sendConnPair(t)
		f, err := os.OpenFile(name, os.O_WRONLY, 0) // read(2) fails: EBADF
		must(t, err)
		defer f.Close()
		_, err = c.sendBlocking(f, -1)
		var pe *fs.PathError
		var oe *net.OpError
		if !errors.As(err, &pe) || pe.Op != "read" || pe.Path != name || errors.As(err, &oe) {
			t.Errorf("got %v, want the file's read error naming %s", err, name)
		}
	})
	t.Run("client gone", func(t *testing.T) {
		client, c := sendConnPair(t)
		client.(*net.TCPConn).SetLinger(0)
		client.Close() // a reset: the next write fails
		f, err := os.Open(name)
		must(t, err)
		defer f.Close()
		var oe *net.OpError
		for range 50 { // the reset may take a write or two to arrive
			if _, err = c.sendBlocking(f, -1); err != nil {
				break
			}
			f.Seek(0, io.SeekStart)
		}
		if !errors.As(err, &oe) || oe.Op != "write" {
			t.Errorf("got %v, want the connection's write error", err)
		}
	})
}
