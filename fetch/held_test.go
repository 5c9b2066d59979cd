package fetch

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// heldBody fills a HeldSink past its memory limit in uneven writes.
func heldBody(t *testing.T, data []byte) *HeldSink {
	t.Helper()
	s := &HeldSink{Limit: 64 << 10, Dir: t.TempDir()}
	for off := 0; off < len(data); off += 50_000 {
		if _, err := s.Write(data[off:min(off+50_000, len(data))]); err != nil {
			t.Fatal(err)
		}
	}
	if s.file == nil || s.buf.Cap() > 0 {
		t.Fatalf("spilled %v, %d bytes of memory kept; want the body on disk only", s.file != nil, s.buf.Cap())
	}
	if ents, _ := os.ReadDir(s.Dir); len(ents) != 0 {
		t.Errorf("spill file left in the directory: %v", ents)
	}
	return s
}

// A held body spilled to disk is released to a file, a pipe or a writer
// whole and in order; to a file on Linux by the kernel, with no byte read
// back through user space (counted). A pipe gets a copy, not the spool's
// pages (see TestReleaseFreesSpool). An O_APPEND file, which
// copy_file_range refuses, gets the portable copy after what it held.
func TestHeldRelease(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16+3)
	kernel := runtime.GOOS == "linux"
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "out")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("head:"))
		s := heldBody(t, data)
		s.Out = f
		before := userCopied.Load()
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		checkReleased(t, path, append([]byte("head:"), data...), userCopied.Load()-before, kernel)
	})
	t.Run("append", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "out")
		os.WriteFile(path, []byte("old:"), 0o644)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := heldBody(t, data)
		s.Out = f
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		checkReleased(t, path, append([]byte("old:"), data...), 0, false)
	})
	t.Run("pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte)
		go func() { b, _ := io.ReadAll(r); got <- b }()
		s := heldBody(t, data)
		s.Out = w
		before := userCopied.Load()
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if b := <-got; !bytes.Equal(b, data) {
			t.Errorf("pipe got %d bytes, want %d", len(b), len(data))
		}
		if n := userCopied.Load() - before; n != int64(len(data)) {
			t.Errorf("%d bytes copied, want %d", n, len(data))
		}
	})
	t.Run("writer", func(t *testing.T) {
		var out bytes.Buffer
		s := heldBody(t, data)
		s.Out = &out
		before := userCopied.Load()
		if err := s.Commit(); err != nil || !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("Commit = %v, %d bytes", err, out.Len())
		}
		if n := userCopied.Load() - before; n != int64(len(data)) {
			t.Errorf("%d bytes copied, want %d", n, len(data))
		}
	})
}

// A closed pipe is a write error, not a silent short release.
func TestHeldReleaseClosedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	s := heldBody(t, bytes.Repeat([]byte{1}, 200<<10))
	s.Out = w
	if err := s.Commit(); err == nil {
		t.Fatal("Commit into a closed pipe succeeded")
	}
	w.Close()
}

func checkReleased(t *testing.T, path string, want []byte, user int64, kernel bool) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("file has %d bytes (%v), want %d", len(got), err, len(want))
	}
	if kernel && user != 0 {
		t.Errorf("%d bytes copied through user space, want 0", user)
	}
}
