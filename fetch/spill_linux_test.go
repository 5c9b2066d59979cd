package fetch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A body held back for stdout redirected to a file is spooled beside that
// file, on its filesystem (an anonymous file: nothing is left there), so
// the release is a copy_file_range within one filesystem, which XFS and
// Btrfs make a reflink; to a pipe it is spooled in TMPDIR as before.
func TestHeldSpillsBesideRegularStdout(t *testing.T) {
	tmp, dir := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR, 0o600); err != nil {
		t.Skipf("no O_TMPFILE here: %v", err)
	} else {
		unix.Close(fd)
	}
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	body := bytes.Repeat([]byte("held body "), 100)
	s := &HeldSink{Out: out, Limit: 16}
	if _, err := s.Write(body); err != nil {
		t.Fatal(err)
	}
	f, _ := s.spooled()
	if f == nil || filepath.Dir(f.Name()) != dir {
		t.Fatalf("spooled in %v, want an anonymous file in %s (stdout's directory)", f, dir)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out.Name()); !bytes.Equal(got, body) {
		t.Errorf("released %d bytes, want the %d held", len(got), len(body))
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("stdout's directory holds %d names, want only the output", len(names))
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	p := &HeldSink{Out: w, Limit: 16}
	if _, err := p.Write(body); err != nil {
		t.Fatal(err)
	}
	if f, _ := p.spooled(); f == nil || !strings.HasPrefix(f.Name(), tmp) {
		t.Errorf("to a pipe, spooled in %v, want TMPDIR %s", f, tmp)
	}
	p.Abort()
}
