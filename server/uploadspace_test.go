package server

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitTemps waits until dir's uploads hold n temporary files (a handler
// creates or removes its own when it gets to it; go test's -timeout
// reports one that never does).
func waitTemps(t *testing.T, dir string, n int) {
	t.Helper()
	for {
		names, _ := os.ReadDir(filepath.Join(dir, uploadDir))
		k := 0
		for _, e := range names {
			if strings.HasPrefix(e.Name(), uploadPrefix) {
				k++
			}
		}
		if k == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Uploads in progress share one bound on temporary disk (uploadsAtOnce
// times --max-upload), not one each: an upload past it is refused with
// 503 and Retry-After instead of adding another --max-upload. Clients that
// go away mid-body, with a wrong digest besides, free their share, change
// nothing and leave no temporary file.
func TestUploadTempSpaceShared(t *testing.T) {
	dir := fixture(t)
	srv, ts := start(t, dir, WithWritable(), WithMaxUpload(10))
	before := readFile(t, filepath.Join(dir, "hello.json"))
	var conns []net.Conn
	for range uploadsAtOnce {
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		must(t, err)
		defer c.Close()
		fmt.Fprintf(c, "PUT /hello.json HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nContent-Digest: %s\r\n\r\n012345678", sfSHA256([]byte("wrong")))
		conns = append(conns, c)
	}
	waitTemps(t, dir, uploadsAtOnce)
	waitUploadSpace(t, srv, uploadsAtOnce*9)

	r := upload(t, ts, "PUT", "/new.txt", []byte("xxxxx"))
	wantStatus(t, r, http.StatusServiceUnavailable)
	if r.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	chunked := "PUT /new.txt HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nxxxxx\r\n0\r\n\r\n"
	wantStatus(t, rawBytes(t, ts, "PUT", []byte(chunked)), http.StatusServiceUnavailable)
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("an upload over the bound was stored")
	}

	for _, c := range conns {
		c.Close()
	}
	waitTemps(t, dir, 0)
	if got := readFile(t, filepath.Join(dir, "hello.json")); got != before {
		t.Errorf("hello.json changed by uploads cut short: %q", got)
	}
	wantStatus(t, upload(t, ts, "PUT", "/new.txt", []byte("x")), http.StatusCreated)
	noTemps(t, dir)
}

// waitUploadSpace waits until the uploads in progress hold n bytes.
func waitUploadSpace(t *testing.T, s *Server, n int64) {
	t.Helper()
	for s.uploads.inUse() != n {
		time.Sleep(time.Millisecond)
	}
}

// A declared length is not held before its bytes come: clients that
// declare --max-upload and send a byte now and then (a slow body, kept
// alive under the read timeout) would otherwise hold all the uploads'
// disk with none used, and every other upload got 503.
func TestUploadTempSpaceNotHeldByDeclaredLength(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable(), WithMaxUpload(10))
	for range uploadsAtOnce {
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		must(t, err)
		defer c.Close()
		fmt.Fprintf(c, "PUT /hello.json HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0")
	}
	waitTemps(t, dir, uploadsAtOnce)
	wantStatus(t, upload(t, ts, "PUT", "/new.txt", []byte("0123456789")), http.StatusCreated)
}
