package patch

import (
	"bytes"
	"io"
	"testing"
)

func benchSet(b *testing.B) ([]byte, []byte) {
	b.Helper()
	base := random(21, 8<<20)
	return base, shiftingInserts(scatteredEdits(base, 22, 64), 23, 64)
}

func BenchmarkEncodeVCDIFF(b *testing.B) {
	base, target := benchSet(b)
	b.SetBytes(int64(len(target)))
	for b.Loop() {
		if err := EncodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeVCDIFF(b *testing.B) {
	base, target := benchSet(b)
	delta := encodeVCDIFF(b, base, target)
	b.SetBytes(int64(len(target)))
	for b.Loop() {
		if err := DecodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(delta), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
