package cmd

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hdig/hdig/internal/peertest"
)

func TestPatchFailures(t *testing.T) {
	dir, old, nw := diffFiles(t)
	delta := filepath.Join(dir, "delta")
	if code, _, stderr := runHdig(t, "diff", "--checksum", old, nw, "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff = %d: %s", code, stderr)
	}
	good, _ := os.ReadFile(delta)
	corrupt := append([]byte(nil), good...)
	corrupt[len(corrupt)-1] ^= 0xff
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"corrupt", []string{"patch", old, write("corrupt", corrupt)}, ExitIntegrity, "corrupt delta"},
		{"truncated", []string{"patch", old, write("short", good[:len(good)/2])}, ExitIntegrity, "corrupt delta"},
		{"wrong base", []string{"patch", nw, delta}, ExitIntegrity, "corrupt delta"},
		{"not a delta", []string{"patch", old, nw}, ExitIntegrity, "--format diffe"},
		{"unknown secondary compressor", []string{"patch", old, write("sec3", []byte("\xd6\xc3\xc4\x00\x01\x03"))}, ExitIntegrity, "secondary compressor ID 3"},
		{"missing delta", []string{"patch", old, filepath.Join(dir, "nope")}, ExitUsage, "no such file"},
		{"bad format", []string{"patch", "--format", "xz", old, delta}, ExitUsage, "--format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name+".out")
			code, _, stderr := runHdig(t, append(tt.args, "-o", out)...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("hdig %v = %d, %q; want %d containing %q", tt.args, code, stderr, tt.code, tt.msg)
			}
			assertNoDeltaFile(t, out)
		})
	}
}

func TestPatchKeepsExistingOutput(t *testing.T) {
	dir, old, _ := diffFiles(t)
	out := filepath.Join(dir, "result")
	os.WriteFile(out, []byte("precious"), 0o644)
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("\xd6\xc3\xc4\x00\x00\x00\x05\x01"), 0o644)
	if code, _, _ := runHdig(t, "patch", old, bad, "-o", out); code != ExitIntegrity {
		t.Errorf("hdig patch with a corrupt delta = %d, want 1", code)
	}
	if b, _ := os.ReadFile(out); string(b) != "precious" {
		t.Errorf("existing output = %q after a failed patch, want it untouched", b)
	}
}

// TestPatchXdelta3Secondary: hdig patch applies what xdelta3 -e writes
// with each of its secondary compressors.
func TestPatchXdelta3Secondary(t *testing.T) {
	xd := peertest.Need(t, "xdelta3")
	dir, old, nw := diffFiles(t)
	want, _ := os.ReadFile(nw)
	for _, comp := range []string{"lzma", "djw", "fgk"} {
		delta := filepath.Join(dir, comp+".vcdiff")
		if out, err := exec.Command(xd, "-e", "-9", "-S", comp, "-f", "-s", old, nw, delta).CombinedOutput(); err != nil {
			t.Fatalf("xdelta3 -e -S %s: %v %s", comp, err, out)
		}
		out := filepath.Join(dir, comp+".out")
		code, _, stderr := runHdig(t, "patch", old, delta, "-o", out)
		got, _ := os.ReadFile(out)
		if code != ExitOK || string(got) != string(want) {
			t.Errorf("hdig patch of xdelta3 -S %s delta = %d, %d bytes, want 0 and %d bytes: %s", comp, code, len(got), len(want), stderr)
		}
	}
}

// A symbolic link at FILE.hdig-part (put there by someone sharing the
// directory) is not written through by hdig diff or patch -o FILE: a
// failed patch would otherwise leave its bytes in the link's target.
func TestDeltaOutputPartLink(t *testing.T) {
	dir, old, nw := diffFiles(t)
	delta, out, victim := filepath.Join(dir, "delta"), filepath.Join(dir, "result"), filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("someone else's"), 0o644)
	for _, args := range [][]string{{"diff", old, nw, "-o", delta}, {"patch", old, delta, "-o", out}, {"patch", nw, delta, "-o", out}} {
		part := args[len(args)-1] + ".hdig-part"
		if err := os.Symlink(victim, part); err != nil {
			t.Fatal(err)
		}
		runHdig(t, args...)
		if b, _ := os.ReadFile(victim); string(b) != "someone else's" {
			t.Fatalf("hdig %v wrote %d bytes through the link at %s", args, len(b), part)
		}
		os.Remove(part)
	}
}

// diff, patch and zsyncmake -o FIFO write into the FIFO once the output is
// complete, as get -o does: they do not replace it with a regular file (as
// root, -o /dev/null would have become one).
func TestDeltaOutputFIFO(t *testing.T) {
	dir, old, nw := diffFiles(t)
	delta := filepath.Join(dir, "delta")
	if code, _, stderr := runHdig(t, "diff", old, nw, "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff = %d: %s", code, stderr)
	}
	want, _ := os.ReadFile(nw)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // waits for the writer
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	code, _, stderr := runHdig(t, "patch", old, delta, "-o", fifo)
	if code != ExitOK {
		t.Fatalf("hdig patch -o FIFO = %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("-o FIFO: now %v (%v), want the FIFO", fi.Mode(), err)
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Errorf("the FIFO's reader got %d bytes, want the %d of the new file", len(b), len(want))
	}
}

// TestDeltaBaseNotRegularFile: OLD is read at random offsets and its size
// bounds the delta's source segments. A character device or pipe (its size
// 0) given as OLD was taken for an empty base, and a good delta was
// reported as a corrupt one (exit 1, an integrity failure); diff made a
// delta against nothing. It is a usage error naming OLD.
func TestDeltaBaseNotRegularFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir, old, nw := diffFiles(t)
	delta := filepath.Join(dir, "delta")
	if code, _, stderr := runHdig(t, "diff", old, nw, "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff = %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"patch", "/dev/zero", delta},
		{"diff", "/dev/zero", nw},
	} {
		out := filepath.Join(dir, "out")
		code, _, stderr := runHdig(t, append(args, "-o", out)...)
		if code != ExitUsage || !strings.Contains(stderr, "/dev/zero") || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("hdig %v = %d, %q; want %d naming /dev/zero, not a regular file", args, code, stderr, ExitUsage)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("hdig %v wrote %s", args, out)
		}
	}
}

// TestDeltaBaseStdin: OLD "-" was opened as a file named "-" ("open -: no
// such file or directory"). OLD is read at random offsets, so stdin cannot
// be it: a usage error that says so.
func TestDeltaBaseStdin(t *testing.T) {
	dir, old, nw := diffFiles(t)
	delta := filepath.Join(dir, "delta")
	if code, _, stderr := runHdig(t, "diff", old, nw, "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff = %d: %s", code, stderr)
	}
	oldBytes, _ := os.ReadFile(old)
	for _, args := range [][]string{{"patch", "-", delta}, {"diff", "-", nw}, {"patch", "-", "-"}} {
		code, _, stderr := runHdigIn(t, string(oldBytes), args...)
		if code != ExitUsage || !strings.Contains(stderr, "OLD cannot be stdin") || strings.Contains(stderr, "no such file") {
			t.Errorf("hdig %v = %d, %q; want %d saying OLD cannot be stdin", args, code, stderr, ExitUsage)
		}
	}
}
