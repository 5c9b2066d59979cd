package fetch

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// -o /dev/stdout (/dev/fd/N, /proc/self/fd/N) names an open file of
// hdig's own, not a path: its link reads "pipe:[123]" for a pipe, which
// was taken for a relative name (/proc/self/fd/pipe:[123].hdig-part: exit
// 2, where `curl -o /dev/stdout URL | tar x` works), and the path of a
// regular file, which the verified bytes then replaced by rename
// (`>> log` lost the log). Such a name is written into, as a FIFO is,
// appending as the shell's >> asks; -c /dev/stdout alike.
func TestOutputOwnDescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, p := range []string{fmt.Sprintf("/proc/self/fd/%d", w.Fd()), fmt.Sprintf("/dev/fd/%d", w.Fd())} {
		if out, err := ResolveOutput(p); err != nil || !out.Special {
			t.Errorf("ResolveOutput(%s) = %+v, %v; want it written into", p, out, err)
		}
	}
	if err := WritePrivate(fmt.Sprintf("/dev/fd/%d", w.Fd()), []byte("jar\n")); err != nil {
		t.Errorf("WritePrivate into a pipe: %v", err)
	}
	w.Close() // the read ends, whatever was written
	if b, _ := io.ReadAll(r); string(b) != "jar\n" {
		t.Errorf("the pipe read %q", b)
	}
	log := filepath.Join(t.TempDir(), "log")
	os.WriteFile(log, []byte("log\n"), 0o644)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0) // the shell's >> log
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	out, err := ResolveOutput(p)
	if err != nil || !out.Special {
		t.Fatalf("ResolveOutput(%s >> log) = %+v, %v; want it written into", p, out, err)
	}
	s := &DeviceSink{Path: out.Path}
	s.Write([]byte("body\n"))
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	assertFileBytes(t, log, []byte("log\nbody\n"))
}
