package patch

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// xdelta3 returns the path of the xdelta3 binary. Without it the test is
// skipped, except in CI (CI set), where it fails.
func xdelta3(t *testing.T) string {
	return peertest.Need(t, "xdelta3")
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s %v: %v %s", name, args, err, msg)
	}
	return out
}

// TestXdelta3DecodesOurs: xdelta3 -d reproduces the target from our deltas,
// with and without the Adler-32 checksum, and ours are at most 1.10 times
// the size of xdelta3 -e -S none's.
func TestXdelta3DecodesOurs(t *testing.T) {
	xd := xdelta3(t)
	for _, ds := range dataSets(t) {
		t.Run(ds.name, func(t *testing.T) {
			dir := t.TempDir()
			base := writeFile(t, dir, "base", ds.base)
			tgt := writeFile(t, dir, "target", ds.target)
			theirs := run(t, xd, "-e", "-S", "none", "-A", "-n", "-c", "-s", base, tgt)
			for _, sum := range []bool{false, true} {
				opts := []Option{WithChecksum(sum)}
				if sum {
					opts = append(opts, WithWindowSize(1<<20)) // several windows
				}
				ours := encodeVCDIFF(t, ds.base, ds.target, opts...)
				delta := writeFile(t, dir, "delta", ours)
				got := run(t, xd, "-d", "-c", "-s", base, delta)
				if !bytes.Equal(got, ds.target) {
					t.Fatalf("xdelta3 -d of our delta (checksum %v) differs from the target", sum)
				}
				if !sum {
					ratio := float64(len(ours)) / float64(len(theirs))
					t.Logf("%s: ours %d B, xdelta3 %d B, ratio %.3f", ds.name, len(ours), len(theirs), ratio)
					if ratio > 1.10 {
						t.Errorf("delta size ratio = %.3f (ours %d, xdelta3 %d), want <= 1.10", ratio, len(ours), len(theirs))
					}
				}
			}
		})
	}
}

// TestDecodeXdelta3: we decode xdelta3 -e -S none output with and without
// its application header (-A) and checksum (-n).
func TestDecodeXdelta3(t *testing.T) {
	xd := xdelta3(t)
	flags := map[string][]string{"plain": {"-A", "-n"}, "apphdr": {"-n"}, "adler32": {"-A"}, "both": nil}
	for _, ds := range dataSets(t) {
		dir := t.TempDir()
		base := writeFile(t, dir, "base", ds.base)
		tgt := writeFile(t, dir, "target", ds.target)
		for name, extra := range flags {
			t.Run(ds.name+"/"+name, func(t *testing.T) {
				args := append(append([]string{"-e", "-S", "none", "-c"}, extra...), "-s", base)
				delta := run(t, xd, append(args, tgt)...)
				got, err := decodeVCDIFF(ds.base, delta)
				if err != nil {
					t.Fatalf("DecodeVCDIFF: %v", err)
				}
				if !bytes.Equal(got, ds.target) {
					t.Fatalf("DecodeVCDIFF of xdelta3's delta differs from the target")
				}
			})
		}
	}
}
