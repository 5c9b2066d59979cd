package cmd

import (
	"github.com/hdig/hdig/internal/peertest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// diffFiles writes an old and a new text into a temporary directory.
func diffFiles(t *testing.T) (dir, old, nw string) {
	t.Helper()
	dir = t.TempDir()
	old, nw = filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	base := strings.Repeat("the quick brown fox jumps over the lazy dog\n", 200)
	if err := os.WriteFile(old, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	target := strings.Replace(base, "lazy", "sleepy", 3) + ".\nend\n"
	if err := os.WriteFile(nw, []byte(target), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, old, nw
}

func TestDiffPatchRoundTrip(t *testing.T) {
	for _, format := range []string{"vcdiff", "gdiff", "diffe"} {
		t.Run(format, func(t *testing.T) {
			dir, old, nw := diffFiles(t)
			delta := filepath.Join(dir, "delta")
			if code, _, stderr := runHdig(t, "diff", "--format", format, old, nw, "-o", delta); code != ExitOK {
				t.Fatalf("hdig diff = %d, want 0: %s", code, stderr)
			}
			args := []string{"patch", old, delta}
			if format == "diffe" {
				args = append(args, "--format", "diffe")
			}
			code, stdout, stderr := runHdig(t, args...)
			want, _ := os.ReadFile(nw)
			if code != ExitOK || stdout != string(want) {
				t.Fatalf("hdig patch = %d, %d bytes, want 0 and %d bytes: %s", code, len(stdout), len(want), stderr)
			}
		})
	}
}

func TestDiffXdelta3Decodes(t *testing.T) {
	xd := peertest.Need(t, "xdelta3")
	dir, old, nw := diffFiles(t)
	delta := filepath.Join(dir, "delta")
	if code, _, stderr := runHdig(t, "diff", "--checksum", old, nw, "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff = %d: %s", code, stderr)
	}
	got, err := exec.Command(xd, "-d", "-c", "-s", old, delta).Output()
	want, _ := os.ReadFile(nw)
	if err != nil || string(got) != string(want) {
		t.Fatalf("xdelta3 -d of hdig diff output: %v", err)
	}
}

func TestDiffUsage(t *testing.T) {
	_, old, nw := diffFiles(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing file", []string{"diff", old, "/nonexistent/x"}, ExitUsage, "no such file"},
		{"bad format", []string{"diff", "--format", "bsdiff", old, nw}, ExitUsage, "--format"},
		{"one arg", []string{"diff", old}, ExitUsage, "arg"},
		{"bad flag", []string{"diff", "--nope", old, nw}, ExitUsage, "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runHdig(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("hdig %v = %d, %q; want %d containing %q", tt.args, code, stderr, tt.code, tt.msg)
			}
		})
	}
}

func TestDiffRefusesBinaryDiffE(t *testing.T) {
	dir, old, _ := diffFiles(t)
	bin := filepath.Join(dir, "bin")
	os.WriteFile(bin, []byte("a\x00b\n"), 0o644)
	out := filepath.Join(dir, "out")
	code, _, stderr := runHdig(t, "diff", "--format", "diffe", old, bin, "-o", out)
	if code != ExitIntegrity || !strings.Contains(stderr, "binary") {
		t.Errorf("hdig diff --format diffe of binary = %d, %q; want 1 naming binary input", code, stderr)
	}
	assertNoDeltaFile(t, out)
}

// assertNoDeltaFile checks that neither FILE nor FILE.hdig-part exists.
func assertNoDeltaFile(t *testing.T, name string) {
	t.Helper()
	for _, p := range []string{name, name + ".hdig-part"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists after a failed run", p)
		}
	}
}

// TestDiffChecksumByDefault: as xdelta3 -e, hdig diff writes each vcdiff
// window's Adler-32 of its target unless told not to (--checksum=false,
// xdelta3's -n), so a patch applied to the wrong OLD fails instead of
// writing other bytes under exit 0.
func TestDiffChecksumByDefault(t *testing.T) {
	dir, old, nw := diffFiles(t)
	delta := filepath.Join(dir, "delta")
	if code, _, stderr := runHdig(t, "diff", old, nw, "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff = %d: %s", code, stderr)
	}
	other := filepath.Join(dir, "other.txt")
	b, _ := os.ReadFile(old)
	b[10] ^= 1 // same size, one byte off: the copies still land
	os.WriteFile(other, b, 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runHdig(t, "patch", other, delta, "-o", out); code != ExitIntegrity || !strings.Contains(stderr, "dler") {
		t.Errorf("patch against the wrong OLD = %d: %s; want 1 and the checksum named", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written from a patch that failed its checksum")
	}
	if code, _, stderr := runHdig(t, "diff", "--checksum=false", old, nw, "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff --checksum=false = %d: %s", code, stderr)
	}
	if code, _, _ := runHdig(t, "patch", other, delta, "-o", out); code != ExitOK {
		t.Errorf("without checksums the wrong OLD cannot be told: exit %d, want 0", code)
	}
}
