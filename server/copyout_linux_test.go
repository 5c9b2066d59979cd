//go:build linux

package server

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// copyOut moves the file's offset by the bytes the socket took, as
// sendfile(2) would: a socket that takes part of a call (its send timeout
// passes) leaves the rest of the file to be sent next, none lost, none
// sent twice; at the file's end it stops short, then returns 0.
func TestCopyOutGivesBackUnsent(t *testing.T) {
	data := make([]byte, 3<<20)
	rand.New(rand.NewSource(7)).Read(data)
	f, fds := slowSocket(t, data)
	src := int(f.Fd())
	var got bytes.Buffer
	drain := func() {
		buf := make([]byte, 1<<20)
		for {
			n, err := unix.Read(fds[1], buf)
			if n <= 0 || err != nil {
				return
			}
			got.Write(buf[:n])
		}
	}
	unix.SetNonblock(fds[1], true)
	calls, shorts := 0, 0
	for got.Len() < len(data) && calls < 10000 {
		n, err := copyOut(fds[0], src, 1<<20)
		calls++
		if err != nil && err != unix.EAGAIN {
			t.Fatalf("copyOut: %v", err)
		}
		if n < 1<<20 {
			shorts++
		}
		off, _ := unix.Seek(src, 0, io.SeekCurrent)
		drain()
		if off != int64(got.Len()) {
			t.Fatalf("after call %d: file offset %d, but the socket took %d bytes", calls, off, got.Len())
		}
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("received %d bytes, want the file's %d, unchanged", got.Len(), len(data))
	}
	if shorts == 0 {
		t.Errorf("%d calls, none short: the socket's buffer never filled, the test proves nothing", calls)
	}
	if n, err := copyOut(fds[0], src, 1<<20); n != 0 || err != nil {
		t.Errorf("at the end of the file: copyOut = %d, %v; want 0, nil", n, err)
	}
}

// A client that takes part of a call and then keeps it waiting makes the
// call come back short at once, as sendfile(2) did: one write(2), not a
// second that waits out the send timeout again. Two such calls in a row
// hand a slow client to the poller (blockingLoop).
func TestCopyOutShortAfterPartialWrite(t *testing.T) {
	f, fds := slowSocket(t, make([]byte, 4<<20))
	before := socketWrites.Load()
	n, err := copyOut(fds[0], int(f.Fd()), 1<<20) // nobody reads fds[1]
	if err != nil || n <= 0 || n >= 1<<20 {
		t.Fatalf("copyOut = %d, %v; want a short count, no error", n, err)
	}
	if w := socketWrites.Load() - before; w != 1 {
		t.Errorf("%d write(2) calls, want 1: the partial write ends the call", w)
	}
	if off, _ := unix.Seek(int(f.Fd()), 0, io.SeekCurrent); off != int64(n) {
		t.Errorf("file offset %d, want %d", off, n)
	}
}

// slowSocket returns data in an open file and a socket pair whose first
// end has a 64 KiB send buffer and a 20 ms send timeout; both are closed
// when the test ends.
func slowSocket(t *testing.T, data []byte) (*os.File, [2]int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUF, 64<<10)
	tv := unix.NsecToTimeval(int64(20e6)) // 20 ms
	unix.SetsockoptTimeval(fds[0], unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	return f, fds
}
