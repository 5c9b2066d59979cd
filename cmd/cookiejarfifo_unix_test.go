//go:build unix

package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// -c FILE naming what is not a regular file (-c /dev/null, a common
// idiom for "use cookies, keep none"; a FIFO a script reads) is written
// into, as curl does: a temporary file renamed onto it replaced the
// device or FIFO with a regular file (as root, /dev/null itself), and
// where the user may not create files beside it (/dev) the run failed
// after the whole download.
func TestCookieJarNotRegularWrittenInto(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "secret"})
	}))
	defer srv.Close()
	fifo := filepath.Join(t.TempDir(), "jar")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	// Read and write ends both held here: hdig's open does not block and
	// what it writes stays in the pipe's buffer.
	fd, err := syscall.Open(fifo, syscall.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Close(fd)
	if code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "-c", fifo, srv.URL+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
		t.Fatalf("-c's FIFO replaced: %v %v", fi.Mode(), err)
	}
	buf := make([]byte, 4096)
	n, _ := syscall.Read(fd, buf)
	if n <= 0 || !strings.Contains(string(buf[:n]), "\tsid\tsecret\n") {
		t.Errorf("the FIFO received %q", buf[:max(n, 0)])
	}
}
