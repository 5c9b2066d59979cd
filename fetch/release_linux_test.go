package fetch

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// blocks returns the 512-byte blocks f takes on disk.
func blocks(t *testing.T, f *os.File) int64 {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Blocks
}

// needPunch skips unless dir's filesystem can punch holes.
func needPunch(t *testing.T, dir string) {
	t.Helper()
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(make([]byte, 64<<10))
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, 64<<10); err != nil {
		t.Skipf("no hole punching here: %v", err)
	}
}

// Released into a file, the spool is punched out behind the copy: the body
// takes one copy's room, not two. Released into a pipe it is not (the
// pipe may hold the spool's pages), and the reader gets every byte.
func TestReleaseFreesSpool(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<20/16)
	data = append(data, "a partial last page"...)
	t.Run("file", func(t *testing.T) {
		s := heldBody(t, data)
		needPunch(t, s.Dir)
		defer s.Abort()
		path := filepath.Join(t.TempDir(), "out")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if n := blocks(t, s.file); n*512 < int64(len(data)) {
			t.Fatalf("the spool takes %d blocks before the release", n)
		}
		if err := release(out, s.file, s.size); err != nil {
			t.Fatal(err)
		}
		if n := blocks(t, s.file); n*512 > int64(os.Getpagesize()) { // a partial last block stays, zeroed
			t.Errorf("the spool still takes %d blocks after its release", n)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Errorf("released %d bytes, not the body", len(got))
		}
	})
	t.Run("pipe", func(t *testing.T) {
		s := heldBody(t, data)
		needPunch(t, s.Dir)
		defer s.Abort()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte)
		go func() { b, _ := io.ReadAll(r); got <- b }()
		err = release(w, s.file, s.size)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if b := <-got; !bytes.Equal(b, data) {
			t.Errorf("the pipe got %d bytes, not the body", len(b))
		}
		if n := blocks(t, s.file); n*512 < int64(len(data)) {
			t.Errorf("the spool was punched behind sendfile: %d blocks left", n)
		}
	})
	t.Run("named", func(t *testing.T) { // a cached version now (cache.PutVerified)
		dir := t.TempDir()
		needPunch(t, dir)
		name := filepath.Join(dir, "version")
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(name, os.O_RDWR, 0) // as a spool is: it could be punched
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		out, err := os.Create(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if err := release(out, f, int64(len(data))); err != nil {
			t.Fatal(err)
		}
		assertFileBytes(t, out.Name(), data)
		assertFileBytes(t, name, data)
	})
}
