package patch

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"testing"
)

// smallSets are dataSets cut to 64 KiB bases, for tests run at every level.
func smallSets() []dataSet {
	bin := random(41, 64<<10)
	txt := text(42, 64<<10)
	return []dataSet{
		{"scattered", bin, scatteredEdits(bin, 43, 20)},
		{"shifting", bin, shiftingInserts(bin, 44, 15)},
		{"text", txt, textEdits(txt, 45, 30)},
		{"empty target", txt, nil},
		{"self copies", bin, selfCopies(bin)},
	}
}

// selfCopies returns a target made mostly of copies of its own new bytes,
// near (overlapping runs) and far (earlier windows), with spans of base
// between: the self and here address modes, and the target index.
func selfCopies(base []byte) []byte {
	fresh := random(46, 6<<10)
	var t []byte
	for i := range 12 {
		t = append(t, fresh[i*300:i*300+900]...)
		t = append(t, bytes.Repeat(fresh[i:i+7], 40+i*9)...)
		t = append(t, base[i*4096:i*4096+700]...)
		t = append(t, t[len(t)/3:len(t)/3+1500]...)
	}
	return t
}

// TestXdelta3DecodesEveryLevel: xdelta3 -d rebuilds the target from our
// delta at every level, with several windows.
func TestXdelta3DecodesEveryLevel(t *testing.T) {
	xd := xdelta3(t)
	dir := t.TempDir()
	for _, ds := range smallSets() {
		base := peertest.WriteFile(t, dir, "base", ds.base)
		for level := 0; level <= 9; level++ {
			ours := encodeVCDIFF(t, ds.base, ds.target, WithLevel(level), WithWindowSize(16<<10))
			delta := peertest.WriteFile(t, dir, "delta", ours)
			if got := peertest.Run(t, xd, "-d", "-c", "-s", base, delta); !bytes.Equal(got, ds.target) {
				t.Fatalf("%s, level %d: xdelta3 -d of our delta differs from the target", ds.name, level)
			}
		}
	}
}

// TestLevelsRoundTrip: every level's vcdiff and gdiff decode to the
// target, and level 9's vcdiff is no larger than level 0's.
func TestLevelsRoundTrip(t *testing.T) {
	for _, ds := range smallSets() {
		sizes := make([]int, 10)
		for level := range sizes {
			d := encodeVCDIFF(t, ds.base, ds.target, WithLevel(level))
			got, err := decodeVCDIFF(ds.base, d)
			if err != nil || !bytes.Equal(got, ds.target) {
				t.Fatalf("%s, level %d: decode: %v, equal %v", ds.name, level, err, bytes.Equal(got, ds.target))
			}
			sizes[level] = len(d)
			var g, back bytes.Buffer
			if err := EncodeGDIFF(bytes.NewReader(ds.base), int64(len(ds.base)), bytes.NewReader(ds.target), &g, WithLevel(level)); err != nil {
				t.Fatalf("%s, level %d: gdiff: %v", ds.name, level, err)
			}
			if err := DecodeGDIFF(bytes.NewReader(ds.base), int64(len(ds.base)), &g, &back); err != nil || !bytes.Equal(back.Bytes(), ds.target) {
				t.Fatalf("%s, level %d: gdiff decode: %v", ds.name, level, err)
			}
		}
		if sizes[9] > sizes[0] {
			t.Errorf("%s: level 9 gives %d bytes, level 0 %d: want level 9 no larger", ds.name, sizes[9], sizes[0])
		}
	}
}

// TestLocalSearchFindsShiftedCopy: after a one-byte insertion in a text
// whose lines repeat elsewhere, the rest is copied from the diagonal next
// to the last copy (a near address), not from an earlier repetition.
func TestLocalSearchFindsShiftedCopy(t *testing.T) {
	line := []byte("func lockedOSThread() bool { return true }\n")
	var base []byte
	for range 64 {
		base = append(base, line...)
	}
	base = append(base, text(46, 4096)...)
	off := 64*len(line) + 2000
	target := append(append(bytes.Clone(base[:off]), 'X'), base[off:]...)
	var without, with int
	for _, level := range []int{0, DefaultLevel} {
		d := encodeVCDIFF(t, base, target, WithLevel(level))
		if got, err := decodeVCDIFF(base, d); err != nil || !bytes.Equal(got, target) {
			t.Fatalf("level %d: decode: %v", level, err)
		}
		if level == 0 {
			without = len(d)
		} else {
			with = len(d)
		}
	}
	if with > without {
		t.Errorf("level %d gives %d bytes, level 0 %d: want no more", DefaultLevel, with, without)
	}
}
