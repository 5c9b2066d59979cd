package patch

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/internal/peertest"
)

// secondaryPairs are the base/target pairs of the secondary interop test:
// text, binary, empty, about 4 MiB (several windows with -W), and a target
// with nothing in common with its base.
func secondaryPairs() []dataSet {
	txt := text(11, 100<<10)
	bin := random(12, 512<<10)
	big := text(13, 4<<20)
	return []dataSet{
		{"text", txt, textEdits(txt, 14, 200)},
		{"binary", bin, scatteredEdits(bin, 15, 100)},
		{"empty", nil, nil},
		{"empty-base", nil, text(16, 30<<10)},
		{"large", big, textEdits(big, 17, 400)},
		{"nomatch", random(18, 100<<10), text(19, 100<<10)},
	}
}

// TestDecodeXdelta3Secondary: we decode what xdelta3 -e writes with every
// secondary compressor (and its default, lzma in Debian's build) at
// levels 1, 6 and 9, through Undo as hdig patch does.
func TestDecodeXdelta3Secondary(t *testing.T) {
	xd := xdelta3(t)
	comps := []string{"", "lzma", "djw", "fgk", "none"}
	for _, ds := range secondaryPairs() {
		dir := t.TempDir()
		base := peertest.WriteFile(t, dir, "base", ds.base)
		tgt := peertest.WriteFile(t, dir, "target", ds.target)
		for _, comp := range comps {
			for _, level := range []string{"-1", "-6", "-9"} {
				name := ds.name + "/" + cmpName(comp) + level
				t.Run(name, func(t *testing.T) {
					args := []string{"-e", level, "-c"}
					if comp != "" {
						args = append(args, "-S", comp)
					}
					if ds.name == "large" {
						args = append(args, "-W", "524288") // 8+ windows
					}
					delta := peertest.Run(t, xd, append(args, "-s", base, tgt)...)
					theirs := xdelta3Decodes(t, xd, base, delta, ds.target)
					var out bytes.Buffer
					err := Undo([]string{"vcdiff"}, bytes.NewReader(ds.base), int64(len(ds.base)), bytes.NewReader(delta), &out)
					if !theirs {
						// xdelta3 3.0.11 cannot decode its own -S fgk output
						// for some multi-window deltas; we must fail too.
						if err == nil || !errors.Is(err, ErrCorrupt) {
							t.Fatalf("Undo(vcdiff) of a delta xdelta3 -d rejects: error = %v, want ErrCorrupt", err)
						}
						t.Logf("xdelta3 -d rejects its own output of %v; so do we: %v", args, err)
						return
					}
					if err != nil {
						t.Fatalf("Undo(vcdiff) of xdelta3 %v: %v", args, err)
					}
					if !bytes.Equal(out.Bytes(), ds.target) {
						t.Fatalf("Undo(vcdiff) of xdelta3 %v: %d bytes differ from the %d-byte target", args, out.Len(), len(ds.target))
					}
				})
			}
		}
	}
}

// xdelta3Decodes reports whether xdelta3 -d rebuilds target from delta.
func xdelta3Decodes(t *testing.T, xd, base string, delta, target []byte) bool {
	t.Helper()
	p := peertest.WriteFile(t, t.TempDir(), "delta", delta)
	out, err := exec.Command(xd, "-d", "-c", "-s", base, p).Output()
	return err == nil && bytes.Equal(out, target)
}

func cmpName(c string) string {
	if c == "" {
		return "default"
	}
	return c
}

// TestSecondaryUnknownID: a compressor ID xdelta3 does not define is
// refused, naming it.
func TestSecondaryUnknownID(t *testing.T) {
	_, err := decodeVCDIFF(nil, []byte("\xd6\xc3\xc4\x00\x01\x03"))
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "ID 3") {
		t.Errorf("DecodeVCDIFF with compressor ID 3: error = %v, want ErrUnsupported naming ID 3", err)
	}
}

// TestSecondaryCorrupt: every truncation and many single-byte changes of
// real secondary-compressed deltas fail with ErrCorrupt (or decode to
// something else that the Adler-32 catches), never panic.
func TestSecondaryCorrupt(t *testing.T) {
	for name, delta := range secondarySeeds(t) {
		base, target := seedPair()
		if got, err := decodeVCDIFF(base, delta); err != nil || !bytes.Equal(got, target) {
			t.Fatalf("%s: seed does not decode: %v", filepath.Base(name), err)
		}
		for n := 0; n < len(delta); n++ {
			if _, err := decodeVCDIFF(base, delta[:n]); err == nil && n < len(delta) {
				// A cut at a window boundary is a shorter valid delta.
				continue
			} else if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s cut at %d: error = %v, want ErrCorrupt", filepath.Base(name), n, err)
			}
		}
		for i := 0; i < len(delta); i += 7 {
			bad := bytes.Clone(delta)
			bad[i] ^= 0x5a
			got, err := decodeVCDIFF(base, bad)
			if err == nil && !bytes.Equal(got, target) {
				t.Errorf("%s byte %d changed: decoded a different target without error", filepath.Base(name), i)
			}
		}
	}
}

// seedPair is the base and target of the stored xdelta3 deltas in
// testdata/xdelta3, which seed the fuzz targets.
func seedPair() (base, target []byte) {
	base = text(21, 48<<10)
	return base, textEdits(base, 22, 60)
}

// secondarySeeds yields the stored xdelta3 deltas: file name and bytes.
func secondarySeeds(t testing.TB) iter.Seq2[string, []byte] {
	names, err := filepath.Glob("testdata/xdelta3/*.vcdiff")
	if err != nil || len(names) == 0 {
		t.Fatalf("no testdata/xdelta3/*.vcdiff: %v", err)
	}
	return func(yield func(string, []byte) bool) {
		for _, name := range names {
			delta, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if !yield(name, delta) {
				return
			}
		}
	}
}

// TestWriteSecondarySeeds regenerates testdata/xdelta3 and the fuzz seed
// corpora from xdelta3 when HDIG_WRITE_SEEDS=1.
func TestWriteSecondarySeeds(t *testing.T) {
	if os.Getenv("HDIG_WRITE_SEEDS") != "1" {
		t.Skip("set HDIG_WRITE_SEEDS=1 to regenerate testdata/xdelta3")
	}
	xd := xdelta3(t)
	dir := t.TempDir()
	b, tg := seedPair()
	base, tgt := peertest.WriteFile(t, dir, "base", b), peertest.WriteFile(t, dir, "target", tg)
	fuzz := map[string]string{"lzma": "FuzzSecondaryLZMA", "djw": "FuzzSecondaryDJW", "fgk": "FuzzSecondaryFGK"}
	for comp, target := range fuzz {
		for _, level := range []string{"-1", "-9"} {
			delta := peertest.Run(t, xd, "-e", level, "-S", comp, "-W", "16384", "-c", "-s", base, tgt)
			name := comp + level
			peertest.WriteFile(t, "testdata/xdelta3", name+".vcdiff", delta)
			if err := os.MkdirAll(filepath.Join("testdata/fuzz", target), 0o755); err != nil {
				t.Fatal(err)
			}
			corpus := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", delta)
			peertest.WriteFile(t, filepath.Join("testdata/fuzz", target), "xdelta3"+level, []byte(corpus))
		}
	}
}

// TestSecondaryBounds: a decompressed section size is checked against the
// target window before anything is allocated or decoded.
func TestSecondaryBounds(t *testing.T) {
	tests := []struct{ name, delta, msg string }{
		{"data over the window", "d6c3c400 01 02 00 07 05 01 02 00 00 06 00", "data section size"},
		{"instructions over 6x the window", "d6c3c400 01 01 00 07 05 02 00 02 00 1f 00", "instructions section size"},
		{"addresses over 5x the window", "d6c3c400 01 10 00 07 05 04 00 00 02 1a 00", "addresses section size"},
		{"size zero", "d6c3c400 01 02 00 07 05 01 02 00 00 00 00", "decompressed size 0"},
		{"unknown delta indicator bit", "d6c3c400 01 02 00 05 05 08 00 00 00", "delta indicator bits"},
		{"lzma without xz header", "d6c3c400 01 02 00 09 05 01 04 00 00 05 01 02 03", "xz stream header"},
		{"djw out of input", "d6c3c400 01 01 00 07 05 01 02 00 00 05 00", "djw"},
		{"fgk out of input", "d6c3c400 01 10 00 07 05 01 02 00 00 05 00", "fgk: input ends"},
		{"truncated compressor ID", "d6c3c400 01", "secondary compressor ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeVCDIFF(nil, mustHex(t, tt.delta))
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("DecodeVCDIFF(%s): error = %v, want ErrCorrupt containing %q", tt.delta, err, tt.msg)
			}
		})
	}
}

// TestSecondaryDeclaredSizeAllocatesNothing: a compressed section starts
// with its decompressed size, which was allocated as soon as it was read
// (up to 12 times the target window for the three sections of a window,
// and twice over with the window read ahead): a delta of a few dozen bytes
// declaring the largest sizes made the decoder allocate 192 MiB for a
// 16 MiB window. Memory must follow what the input can make: a prefix
// code (djw, fgk) makes at most 8 bytes per input byte, and lzma output
// grows chunk by chunk as it is decoded. The decoders' reservations are
// counted (secondaryReserved), not the runtime's allocations.
func TestSecondaryDeclaredSizeAllocatesNothing(t *testing.T) {
	const tgtLen = 16 << 20
	for _, id := range []byte{secDJW, secLZMA, secFGK} {
		body := appendVarint(nil, tgtLen)
		body = append(body, vcdDataComp|vcdInstComp|vcdAddrComp)
		var secs []byte
		for _, k := range []int{1, 6, 5} {
			sec := append(appendVarint(nil, uint64(k*tgtLen)), 0x55, 0xaa, 0x55)
			body = appendVarint(body, uint64(len(sec)))
			secs = append(secs, sec...)
		}
		body = append(body, secs...)
		delta := append([]byte{0xd6, 0xc3, 0xc4, 0, vcdDecompress, id, 0}, appendVarint(nil, uint64(len(body)))...)
		delta = append(delta, body...)
		before := secondaryReserved.Load()
		_, err := decodeVCDIFF(nil, delta, WithMaxWindow(tgtLen))
		n := secondaryReserved.Load() - before
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error = %v, want ErrCorrupt", secondaryNames[id], err)
		}
		if n > 4<<20 {
			t.Errorf("%s: a %d-byte delta reserved %d MiB, want at most 4", secondaryNames[id], len(delta), n>>20)
		}
	}
}

// TestSecondaryErrorOrder: with a secondary compressor the next window is
// read and expanded while the current one runs, yet the error reported is
// the first in the delta: window 0 corrupt and window 1 cut short names
// window 0; window 1 cut short alone names window 1.
func TestSecondaryErrorOrder(t *testing.T) {
	for name, delta := range secondarySeeds(t) {
		base, _ := seedPair()
		var ends []int // where the header or a window ends: a cut there decodes, or has no window
		for n := 1; n <= len(delta); n++ {
			if _, err := decodeVCDIFF(base, delta[:n]); err == nil || strings.Contains(err.Error(), "no window") {
				ends = append(ends, n)
			}
		}
		if len(ends) < 3 {
			t.Fatalf("%s: %d window ends, want at least 3", filepath.Base(name), len(ends))
		}
		cut := delta[:ends[2]-3] // inside window 1
		if _, err := decodeVCDIFF(base, cut); err == nil || !strings.Contains(err.Error(), "window 1:") {
			t.Errorf("%s cut in window 1: error = %v, want one naming window 1", filepath.Base(name), err)
		}
		tried := 0
		for i := ends[0] + 1; i < ends[1]; i += 5 {
			bad := bytes.Clone(delta)
			if bad[i] ^= 0xa5; !failsIn(base, bad, "window 0:") {
				continue // a change that window 0 survives (the last bits of a range coder)
			}
			tried++
			if _, err := decodeVCDIFF(base, bad[:len(cut)]); err == nil || !strings.Contains(err.Error(), "window 0:") {
				t.Errorf("%s byte %d of window 0 changed and window 1 cut: error = %v, want one naming window 0", filepath.Base(name), i, err)
			}
		}
		if tried < 10 {
			t.Errorf("%s: %d changes of window 0 fail there, want at least 10", filepath.Base(name), tried)
		}
	}
}

// failsIn reports whether decoding delta fails with an error naming where.
func failsIn(base, delta []byte, where string) bool {
	_, err := decodeVCDIFF(base, delta)
	return err != nil && strings.Contains(err.Error(), where)
}
