package patch

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"testing"
)

// xdelta3 returns the path of the xdelta3 binary. Without it the test is
// skipped, except in CI (CI set), where it fails.
func xdelta3(t *testing.T) string {
	return peertest.Need(t, "xdelta3")
}

// TestXdelta3DecodesOurs: xdelta3 -d reproduces the target from our deltas,
// with and without the Adler-32 checksum, and ours are at most 1.10 times
// the size of xdelta3 -e -S none's.
func TestXdelta3DecodesOurs(t *testing.T) {
	xd := xdelta3(t)
	for _, ds := range dataSets(t) {
		t.Run(ds.name, func(t *testing.T) {
			dir := t.TempDir()
			base := peertest.WriteFile(t, dir, "base", ds.base)
			tgt := peertest.WriteFile(t, dir, "target", ds.target)
			theirs := peertest.Run(t, xd, "-e", "-S", "none", "-A", "-n", "-c", "-s", base, tgt)
			for _, sum := range []bool{false, true} {
				opts := []Option{WithChecksum(sum)}
				if sum {
					opts = append(opts, WithWindowSize(1<<20)) // several windows
				}
				ours := encodeVCDIFF(t, ds.base, ds.target, opts...)
				delta := peertest.WriteFile(t, dir, "delta", ours)
				got := peertest.Run(t, xd, "-d", "-c", "-s", base, delta)
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
		base := peertest.WriteFile(t, dir, "base", ds.base)
		tgt := peertest.WriteFile(t, dir, "target", ds.target)
		for name, extra := range flags {
			t.Run(ds.name+"/"+name, func(t *testing.T) {
				args := append(append([]string{"-e", "-S", "none", "-c"}, extra...), "-s", base)
				delta := peertest.Run(t, xd, append(args, tgt)...)
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

// TestXdelta3DecodesDefaultWindows: the encoder's default windows (16
// MiB, twice xdelta3's, for fewer window headers) are within what xdelta3
// -d accepts (it refuses larger ones: "hard window size exceeded").
func TestXdelta3DecodesDefaultWindows(t *testing.T) {
	xd := xdelta3(t)
	base := random(58, 1<<20)
	target := bytes.Repeat(base, 17)
	ours := encodeVCDIFF(t, base, target)
	if n := countWindows(t, ours); n != 2 {
		t.Fatalf("%d windows for %d bytes of target, want 2", n, len(target))
	}
	dir := t.TempDir()
	got := peertest.Run(t, xd, "-d", "-c", "-s", peertest.WriteFile(t, dir, "base", base), peertest.WriteFile(t, dir, "delta", ours))
	if !bytes.Equal(got, target) {
		t.Fatal("xdelta3 -d of our delta differs from the target")
	}
}

// countWindows counts the windows of a delta with no header extensions.
func countWindows(t *testing.T, d []byte) int {
	t.Helper()
	uvarint := func(i int) (uint64, int) {
		var v uint64
		for ; i < len(d); i++ {
			v = v<<7 | uint64(d[i]&0x7f)
			if d[i] < 0x80 {
				return v, i + 1
			}
		}
		t.Fatal("delta truncated in a varint")
		return 0, 0
	}
	n, i := 0, 5
	for i < len(d) {
		ind := d[i]
		i++
		if ind&(vcdSource|vcdTarget) != 0 {
			_, i = uvarint(i)
			_, i = uvarint(i)
		}
		var dl uint64
		dl, i = uvarint(i)
		i += int(dl)
		n++
	}
	return n
}
