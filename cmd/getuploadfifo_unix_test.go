//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// -T (or --data-binary @) naming a file that is not a regular file (a
// FIFO, /dev/stdin from a pipe, /dev/null) was refused ("not a regular
// file"), where curl sends what it reads. It is read once, spooled as
// stdin is for -T -, then digested and sent.
func TestUploadFromFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, tt := range []struct {
		flag, arg, want string
	}{
		{"-T", fifo, "from a pipe\n"},
		{"--data-binary", "@" + fifo, "from a pipe\n"},
		{"-T", os.DevNull, ""},
	} {
		if tt.want != "" {
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err == nil {
					f.WriteString(tt.want)
					f.Close()
				}
			}()
		}
		srv, seen := seeingOrigin(t, nil)
		code, _, errOut := runHdig(t, "get", "-s", "-S", "--no-cache", tt.flag, tt.arg, srv.URL+"/up/x")
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", tt.flag, tt.arg, code, errOut)
		}
		last := seen.last(t)
		if string(last.Body) != tt.want || last.Header.Get("Content-Digest") == "" {
			t.Errorf("%s %s: %s body %q, Content-Digest %q; want %q", tt.flag, tt.arg, last.Method, last.Body, last.Header.Get("Content-Digest"), tt.want)
		}
	}
}
