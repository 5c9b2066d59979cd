//go:build unix

package fetch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO someone else made in a shared (sticky, world-writable) directory
// at the name of -o FILE or of the cookie jar (-c): curl's open (O_CREAT)
// is refused by the kernel's protected_fifos, where hdig, opening it
// without O_CREAT, wrote the verified body, or the session's cookies, to
// whoever reads it. Refused as ResolveOutput refuses a link someone else
// put there; the user's own FIFO is written into as before.
func TestForeignFIFOInSharedDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a FIFO owned by someone else")
	}
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o755)
	if err := os.Chmod(shared, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	foreign, own := filepath.Join(shared, "out"), filepath.Join(shared, "mine")
	for _, p := range []string{foreign, own} {
		if err := syscall.Mkfifo(p, 0o666); err != nil {
			t.Skip(err)
		}
	}
	if err := os.Chown(foreign, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "jar") // the user's own link to it
	os.Symlink(foreign, link)
	for _, p := range []string{foreign, link} {
		if out, err := ResolveOutput(p); err == nil {
			t.Errorf("ResolveOutput(%s) = %+v, want an error", p, out)
		}
		// A reader waits, so that a write into the FIFO does not block.
		r, err := os.OpenFile(foreign, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := WritePrivate(p, []byte("session=secret\n")); err == nil {
			t.Errorf("WritePrivate(%s) into someone else's FIFO: no error", p)
		}
		buf := make([]byte, 64)
		if n, _ := r.Read(buf); n > 0 {
			t.Errorf("someone else's FIFO read %q", buf[:n])
		}
		r.Close()
	}
	if out, err := ResolveOutput(own); err != nil || !out.Special {
		t.Errorf("ResolveOutput(own FIFO) = %+v, %v; want it written into", out, err)
	}
}
