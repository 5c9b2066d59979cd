//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hdig/hdig/server/servertest"
)

// TestGetOwnConditionalExpectFIFO: -o naming a FIFO (or a terminal, as
// -o /dev/stdout may) holds no copy the 304 kept, and reading it to
// compare with --expect would block with no writer: such an output is a
// stream (not a FileSink), so the expectation is left uncompared, with
// the warning, as to stdout.
func TestGetOwnConditionalExpectFIFO(t *testing.T) {
	url, _ := recordedOrigin(t, map[string]string{"h.json": servertest.Hello})
	url += "/h.json"
	etag := etagOf(t, url)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	code, _, errOut := runHdig(t, "get", "--no-cache", "-H", "If-None-Match: "+etag, "--expect", "sha256:"+strings.Repeat("0", 64), "-o", fifo, url)
	if code != 0 || !strings.Contains(errOut, "not compared") {
		t.Errorf("-o FIFO on a 304: exit %d, stderr %q; want 0 and a warning that it was not compared", code, errOut)
	}
	if fi, err := os.Stat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}
