package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hdig/hdig/cache"
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
// takes one copy's room, not two. Into a pipe or a socket too: those get
// a copy, not the spool's pages lent by sendfile (which a reader could
// splice on and keep past a punch), punched behind. The reader gets every
// byte.
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
		if err := release(out, s.file, s.size, true); err != nil {
			t.Fatal(err)
		}
		if n := blocks(t, s.file); n*512 > int64(os.Getpagesize()) { // a partial last block stays, zeroed
			t.Errorf("the spool still takes %d blocks after its release", n)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Errorf("released %d bytes, not the body", len(got))
		}
	})
	ends := map[string]func(t *testing.T) (r, w *os.File){
		"pipe": func(t *testing.T) (r, w *os.File) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return r, w
		},
		"socket": func(t *testing.T) (r, w *os.File) {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			return os.NewFile(uintptr(fds[1]), "r"), os.NewFile(uintptr(fds[0]), "w")
		},
	}
	for name, open := range ends {
		t.Run(name, func(t *testing.T) {
			s := heldBody(t, data)
			needPunch(t, s.Dir)
			defer s.Abort()
			r, w := open(t)
			defer r.Close()
			got := make(chan []byte)
			go func() { b, _ := io.ReadAll(r); got <- b }()
			err := release(w, s.file, s.size, true)
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if b := <-got; !bytes.Equal(b, data) {
				t.Errorf("the %s got %d bytes, not the body", name, len(b))
			}
			if n := blocks(t, s.file); n*512 > int64(os.Getpagesize()) {
				t.Errorf("the spool still takes %d blocks after its release into a %s", n, name)
			}
		})
	}
}

// A held body spooled into the cache may have become a cached version
// (storeHeld), which other processes open, check and then read: its
// release never punches it, even once its name is gone (another download
// of the same body replaced the blob, or gc or eviction removed it).
func TestReleaseKeepsCachedSpool(t *testing.T) {
	dir := t.TempDir()
	needPunch(t, dir)
	store, err := cache.Open(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	data := bytes.Repeat([]byte("base version bytes "), 200_000)
	sum := sha256.Sum256(data)
	e := cache.Entry{URL: "http://example.test/f", ETag: `"v1"`, SHA256: hex.EncodeToString(sum[:])}
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	held := &HeldSink{Out: out, Limit: 64 << 10}
	spoolIn(held, store)
	held.expect(int64(len(data)))
	if _, err := held.Write(data); err != nil {
		t.Fatal(err)
	}
	if !held.inStore {
		t.Skip("no anonymous spool in the cache here")
	}
	got, err := store.PutVerified(e, held.file, held.size) // as storeHeld does
	if err != nil {
		t.Fatal(err)
	}
	base, err := store.Open(got) // another process: checked, read later
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	other, err := store.Spool() // another download of the same body replaces the blob
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Write(data)
	if _, err := store.PutVerified(e, other, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if err := held.Commit(); err != nil {
		t.Fatal(err)
	}
	assertFileBytes(t, out.Name(), data)
	buf := make([]byte, len(data))
	if _, err := base.ReadAt(buf, 0); err != nil || !bytes.Equal(buf, data) {
		t.Errorf("a checked version reads other bytes after the release (%v)", err)
	}
}
