package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// heldPut sends a PUT's header with Expect: 100-continue and waits for
// the 100 (Continue): the server has chosen the target and evaluated the
// preconditions, and reads the body next. send sends the body and returns
// the final response.
func heldPut(t *testing.T, addr, target string, body []byte) (send func() *http.Response) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: test\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", target, len(body))
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	must(t, err)
	if !strings.Contains(line, " 100 ") {
		t.Fatalf("PUT %s: %q, want 100 Continue", target, line)
	}
	for line != "\r\n" {
		line, err = br.ReadString('\n')
		must(t, err)
	}
	return func() *http.Response {
		_, err := conn.Write(body)
		must(t, err)
		resp, err := http.ReadResponse(br, &http.Request{Method: "PUT"})
		must(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
}

// Two PUTs racing for one name, one storing the file new, the other
// new/a, which needs new as a directory: the one that loses gets 409
// Conflict, not 500, and leaves nothing behind (found by the review: the
// rename over the directory the other had made failed as an internal
// error).
func TestPutRaceFileAndDirectoryConflict(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	addr := ts.Listener.Addr().String()

	// new as a file loses to new/a.
	send := heldPut(t, addr, "/new", []byte("the file\n"))
	wantStatus(t, upload(t, ts, "PUT", "/new/a", []byte("in the directory\n")), http.StatusCreated)
	if resp := send(); resp.StatusCode != http.StatusConflict {
		t.Errorf("PUT /new after /new/a made the directory: status %d, want 409", resp.StatusCode)
	}
	if got := readFile(t, filepath.Join(dir, "new", "a")); got != "in the directory\n" {
		t.Errorf("new/a = %q", got)
	}

	// other/a as a file in a directory loses to other as a file.
	send = heldPut(t, addr, "/other/a", []byte("in the directory\n"))
	wantStatus(t, upload(t, ts, "PUT", "/other", []byte("the file\n")), http.StatusCreated)
	if resp := send(); resp.StatusCode != http.StatusConflict {
		t.Errorf("PUT /other/a after /other was stored: status %d, want 409", resp.StatusCode)
	}
	if fi, err := os.Stat(filepath.Join(dir, "other")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("other: %v, %v; want the file stored", fi, err)
	}
	noTemps(t, dir)
}
