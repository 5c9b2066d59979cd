package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -I -o FILE -D -: the heads go to FILE (-I -o) and to stdout (-D -), as
// curl writes them to both. -I -o FILE took the one writer the heads
// have, and -D - printed nothing.
func TestHeadOutputFileDumpStdout(t *testing.T) {
	srv, _ := seeingOrigin(t, helloHandler)
	dst := filepath.Join(t.TempDir(), "h.txt")
	code, stdout, errOut := runHdig(t, "get", "-s", "-I", "-o", dst, "-D", "-", srv.URL+"/f")
	b, _ := os.ReadFile(dst)
	if code != 0 || !strings.HasPrefix(stdout, "HTTP/1.1 200 OK\r\n") || !strings.HasPrefix(string(b), "HTTP/1.1 200 OK\r\n") {
		t.Fatalf("exit %d, stdout %q, FILE %q; want the heads in both\n%s", code, stdout, b, errOut)
	}
}
