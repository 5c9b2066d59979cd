package patch

import (
	"bytes"
	"strings"
	"testing"
)

// fuzzLimit bounds what a fuzzed decoder may write.
const fuzzLimit = 1 << 20

var fuzzBase = []byte(snarkSource)

func fuzzOpts() []Option {
	return []Option{WithMaxWindow(fuzzLimit), WithMaxOutput(fuzzLimit), WithMaxText(fuzzLimit), WithCacheSize(1 << 16)}
}

// FuzzDecodeVCDIFF: no input panics or writes beyond the limits; and a
// target made from the input round-trips through the encoder.
func FuzzDecodeVCDIFF(f *testing.F) {
	for _, v := range vcdiffVectors {
		f.Add([]byte(v.base), mustHex(f, v.delta))
	}
	f.Add(fuzzBase, encodeVCDIFF(f, fuzzBase, []byte(snarkTarget)))
	f.Fuzz(func(t *testing.T, base, delta []byte) {
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

// FuzzDecodeGDIFF: no panic, output bounded, round trip.
func FuzzDecodeGDIFF(f *testing.F) {
	for _, v := range gdiffTests {
		f.Add([]byte(v.base), mustHex(f, v.delta))
	}
	f.Add(fuzzBase, encodeGDIFF(f, fuzzBase, []byte(snarkTarget)))
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := decodeGDIFF(base, delta, fuzzOpts()...)
		if len(out) > fuzzLimit+64<<10 {
			t.Fatalf("decoded %d bytes, over the %d limit", len(out), fuzzLimit)
		}
		if err != nil {
			return
		}
		back, err := decodeGDIFF(base, encodeGDIFF(t, base, out))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("round trip of the decoded target: %v", err)
		}
	})
}

// FuzzApplyDiffE: no panic, output bounded by base and script, round trip.
func FuzzApplyDiffE(f *testing.F) {
	for _, v := range diffeTexts {
		script, err := encodeDiffE([]byte(v.base), []byte(v.target))
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(v.base), script)
	}
	f.Fuzz(func(t *testing.T, base, script []byte) {
		var out bytes.Buffer
		err := ApplyDiffE(bytes.NewReader(base), int64(len(base)), bytes.NewReader(script), &out, fuzzOpts()...)
		if out.Len() > len(base)+len(script)+1 {
			t.Fatalf("applied %d bytes from a %d-byte base and %d-byte script", out.Len(), len(base), len(script))
		}
		if err != nil || bytes.IndexByte(base, 0) >= 0 {
			return
		}
		script2, err := encodeDiffE(base, out.Bytes())
		if err != nil {
			return // e.g. a target without its final newline
		}
		back, err := applyDiffE(base, script2)
		if err != nil || !bytes.Equal(back, out.Bytes()) {
			t.Fatalf("round trip of the applied target: %v", err)
		}
	})
}

// FuzzUndo: an IM list of a delta coding and compressions, as a 226
// names it, undone on any body: no panic, output bounded.
func FuzzUndo(f *testing.F) {
	target := []byte(snarkTarget)
	for _, ims := range []string{"vcdiff, br", "vcdiff, zstd", "gdiff, gzip", "diffe, deflate", "zstd"} {
		list := strings.Split(ims, ", ")
		var body bytes.Buffer
		if err := EncodeList(list, bytes.NewReader(fuzzBase), int64(len(fuzzBase)), bytes.NewReader(target), &body); err != nil {
			f.Fatal(err)
		}
		f.Add(ims, body.Bytes())
	}
	f.Fuzz(func(t *testing.T, ims string, body []byte) {
		var out bytes.Buffer
		err := Undo(strings.Split(ims, ","), bytes.NewReader(fuzzBase), int64(len(fuzzBase)), bytes.NewReader(body), &out, fuzzOpts()...)
		if out.Len() > fuzzLimit {
			t.Fatalf("Undo(%q) wrote %d bytes, over the %d limit (err %v)", ims, out.Len(), fuzzLimit, err)
		}
	})
}
