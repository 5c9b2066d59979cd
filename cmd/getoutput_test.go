//go:build linux

package cmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// digestOrigin serves body with its Repr-Digest (or a wrong one) and
// counts requests.
func digestOrigin(t *testing.T, body string, lie bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		d := body
		if lie {
			d += "!"
		}
		w.Header().Set("Repr-Digest", digestField([]byte(d)))
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// -o FIFO: the verified bytes are written into the FIFO, which stays one;
// a mismatch writes nothing into it.
func TestGetOutputFIFO(t *testing.T) {
	body := strings.Repeat("fifo ", 200)
	for _, lie := range []bool{false, true} {
		fifo := filepath.Join(t.TempDir(), "pipe")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		// A reader that does not wait for a writer; the body fits the pipe.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		srv, _ := digestOrigin(t, body, lie)
		code, _, stderr := runHdig(t, "get", "--no-cache", "-o", fifo, srv.URL)
		got, _ := io.ReadAll(r)
		r.Close()
		fi, err := os.Lstat(fifo)
		if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("lie %v: %s is no longer a FIFO (%v, %v)", lie, fifo, fi.Mode(), err)
		}
		want, wantCode := body, 0
		if lie {
			want, wantCode = "", ExitIntegrity
		}
		if code != wantCode || string(got) != want {
			t.Errorf("lie %v: exit %d, %d bytes through the FIFO (stderr %q); want %d, %d", lie, code, len(got), stderr, wantCode, len(want))
		}
		assertNoPart(t, fifo)
	}
}

// -o on a character device (a null device made in a temporary directory,
// as root) writes into it: it stays a device.
func TestGetOutputCharDevice(t *testing.T) {
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skip("mknod (needs root):", err)
	}
	srv, _ := digestOrigin(t, "to the null device", false)
	if code, _, stderr := runHdig(t, "get", "--no-cache", "-o", dev, srv.URL); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fi, err := os.Lstat(dev)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v, %v", dev, fi.Mode(), err)
	}
	assertNoPart(t, dev)
}

// -o LINK writes through the link: the part goes beside the target and is
// renamed onto it; the link stays a link. A dangling link creates its target.
func TestGetOutputSymlink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(sub, "target")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink("sub/target", link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(sub, "new"), dangling)
	srv, _ := digestOrigin(t, "new bytes", false)
	for _, l := range []string{link, dangling} {
		if code, _, stderr := runHdig(t, "get", "--no-cache", "-o", l, srv.URL); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", l, code, stderr)
		}
		fi, err := os.Lstat(l)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v)", l, err)
		}
		if b, err := os.ReadFile(l); err != nil || string(b) != "new bytes" {
			t.Errorf("through %s: %q, %v", l, b, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	subEntries, _ := os.ReadDir(sub)
	if len(entries) != 3 || len(subEntries) != 2 {
		t.Errorf("%d entries beside the links, %d beside the targets; want 3 and 2 (no part left)", len(entries), len(subEntries))
	}
}

// -o DIR fails before anything is fetched, with exit 2 and one line.
func TestGetOutputDirectory(t *testing.T) {
	dir := t.TempDir()
	srv, n := digestOrigin(t, "x", false)
	code, stdout, stderr := runHdig(t, "get", "--no-cache", "-o", dir, srv.URL)
	if code != ExitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "directory") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line naming the directory", code, stdout, stderr)
	}
	if n.Load() != 0 {
		t.Errorf("%d requests made, want none", n.Load())
	}
	assertNoPart(t, dir)
}

func assertNoPart(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path + ".hdig-part"); err == nil {
		t.Errorf("%s.hdig-part left behind", path)
	}
}

// -O -J without a usable Content-Disposition writes -O's file as -O does:
// an existing private file stays private (it is not replaced by a 0644 one).
func TestGetJFallbackKeepsMode(t *testing.T) {
	srv, _ := seeingOrigin(t, nil)
	dir := t.TempDir()
	p := filepath.Join(dir, "plain.json")
	os.WriteFile(p, []byte("old"), 0o600)
	if code, _, stderr := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, srv.URL+"/plain.json"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertFile(t, p, helloBody)
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v (%v), want the old file's 0600", p, fi.Mode(), err)
	}
}
