//go:build linux

package server

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBlockingSendRangeFallback: a range of a large file sent in blocking
// mode to a client that stalls past stallWait part way goes on through
// the poller from the byte the blocking calls stopped at: the client gets
// exactly the range's bytes.
func TestBlockingSendRangeFallback(t *testing.T) {
	const size = 24 << 20
	dir, data := largeFixture(t, size)
	s, err := New(dir, WithSettle(0))
	must(t, err)
	base, _ := serveLn(t, s)
	first, last := 12345, size-7
	before := readSendStats()
	conn := dialServer(t, base, 64<<10)
	fmt.Fprintf(conn, "GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=%d-%d\r\n\r\n", first, last)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	must(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		t.Fatalf("status %d, want 206", resp.StatusCode)
	}
	var got bytes.Buffer
	_, err = io.CopyN(&got, resp.Body, 2<<20)
	must(t, err)
	for readSendStats().fallbacks == before.fallbacks && got.Len() < 8<<20 {
		time.Sleep(3 * stallWait) // stall: the blocking call gives up
		_, err = io.CopyN(&got, resp.Body, 1<<20)
		must(t, err)
	}
	_, err = io.Copy(&got, resp.Body)
	must(t, err)
	if !bytes.Equal(got.Bytes(), data[first:last+1]) {
		t.Fatalf("got %d bytes, not the range's %d", got.Len(), last+1-first)
	}
	if d := readSendStats(); d.fallbacks == before.fallbacks || d.calls == before.calls {
		t.Errorf("blocking calls %d, fallbacks %d: want a blocking send that moved to the poller",
			d.calls-before.calls, d.fallbacks-before.fallbacks)
	}
}

// TestBlockingSendFileRewritten: a large file rewritten in place (same
// size, other bytes) or truncated while it is sent in blocking mode never
// reaches the client as a clean body under the old digests: the guard
// cuts it, or it ends short of its Content-Length.
func TestBlockingSendFileRewritten(t *testing.T) {
	const size = 24 << 20
	for _, shrink := range []bool{false, true} {
		dir, data := largeFixture(t, size)
		s, err := New(dir, WithSettle(0))
		must(t, err)
		base, _ := serveLn(t, s)
		before := readSendStats()
		conn := dialServer(t, base, 0)
		fmt.Fprintf(conn, "GET /big.bin HTTP/1.1\r\nHost: x\r\nWant-Repr-Digest: sha-256\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		must(t, err)
		var got bytes.Buffer
		_, err = io.CopyN(&got, resp.Body, 1<<20)
		must(t, err)
		f, err := os.OpenFile(filepath.Join(dir, "big.bin"), os.O_WRONLY, 0)
		must(t, err)
		if shrink {
			must(t, f.Truncate(size/2))
		} else {
			other := make([]byte, size)
			rand.Read(other)
			_, err = f.WriteAt(other, 0)
			must(t, err)
		}
		f.Close()
		_, err = io.Copy(&got, resp.Body)
		resp.Body.Close()
		if err == nil && got.Len() == size {
			t.Errorf("shrink %v: a clean body of %d bytes after the file changed (the file's own: %v; Repr-Digest %s)",
				shrink, got.Len(), bytes.Equal(got.Bytes(), data), resp.Header.Get("Repr-Digest"))
		}
		if d := readSendStats(); d.calls == before.calls {
			t.Errorf("shrink %v: no blocking call", shrink)
		}
	}
}
