package patch

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSecondary decodes mutated xdelta3 deltas of one compressor against
// the seed base: no panic, output within the limits, and a delta that
// decodes without error gives the target the Adler-32 checksums vouch for.
func fuzzSecondary(f *testing.F, comp string) {
	names, _ := filepath.Glob(filepath.Join("testdata/xdelta3", comp+"-*.vcdiff"))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	base, _ := seedPair()
	f.Fuzz(func(t *testing.T, delta []byte) {
		out, err := decodeVCDIFF(base, delta, fuzzOpts()...)
		if len(out) > fuzzLimit {
			t.Fatalf("decoded %d bytes, over the %d limit", len(out), fuzzLimit)
		}
		if err != nil {
			return
		}
		back, err := decodeVCDIFF(base, encodeVCDIFF(t, base, out, WithWindowSize(1<<12)))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("round trip of the decoded target: %v", err)
		}
	})
}

func FuzzSecondaryLZMA(f *testing.F) { fuzzSecondary(f, "lzma") }
func FuzzSecondaryDJW(f *testing.F)  { fuzzSecondary(f, "djw") }
func FuzzSecondaryFGK(f *testing.F)  { fuzzSecondary(f, "fgk") }
