//go:build unix

package cmd

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A body read from stdin or from a file that is no regular file (a FIFO,
// /dev/stdin) can be read once: with several URLs, the first got it and
// every other an empty body, digested as such, exit 0. Only -T -,
// --data-binary @- and -d @- were refused; -F f=@-, --data-urlencode and
// any such file named were not. They are refused before anything is sent.
func TestStreamBodyForOneURLOnly(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{
		{"-F", "f=@-"},
		{"-F", "f=<" + fifo},
		{"-d", "@" + fifo},
		{"--data-urlencode", "n@" + fifo},
		{"--data-binary", "@" + fifo},
		{"-T", fifo},
	} {
		srv, seen := seeingOrigin(t, nil)
		code, _, errOut := runHdigIn(t, "a=1\n", append(append([]string{"get", "-s", "-S", "--no-cache", "-O", "--output-dir", t.TempDir()}, args...), srv.URL+"/a", srv.URL+"/b")...)
		seen.mu.Lock()
		n := len(seen.reqs)
		seen.mu.Unlock()
		if code != ExitUsage || n != 0 || !strings.Contains(errOut, "can be read for one URL only") {
			t.Errorf("%v: exit %d, %d requests; want exit %d, none: %s", args, code, n, ExitUsage, errOut)
		}
	}
}
