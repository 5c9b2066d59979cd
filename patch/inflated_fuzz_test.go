package patch

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecodeInflated: no hdig-vcdiff-inflated delta panics, hangs or
// writes beyond WithMaxOutput; a target it decodes round-trips through
// the encoder. Seeds in testdata/fuzz/FuzzDecodeInflated.
func FuzzDecodeInflated(f *testing.F) {
	base := append([]byte("code before "), zlibText(1, 8000, false)...)
	target := append([]byte("code before "), zlibText(1, 8000, true)...)
	var d bytes.Buffer
	if err := EncodeInflated(bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &d); err != nil {
		f.Fatal(err)
	}
	f.Add(base, d.Bytes())
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		var out bytes.Buffer
		err := DecodeInflated(bytes.NewReader(base), int64(len(base)), bytes.NewReader(delta), &out, fuzzOpts()...)
		if out.Len() > fuzzLimit {
			t.Fatalf("decoded %d bytes, over the %d limit", out.Len(), fuzzLimit)
		}
		if err != nil {
			return
		}
		var again, back bytes.Buffer
		err = EncodeInflated(bytes.NewReader(base), int64(len(base)), bytes.NewReader(out.Bytes()), &again)
		if errors.Is(err, ErrNothingInflated) {
			return
		}
		if err != nil {
			t.Fatalf("EncodeInflated of the decoded target: %v", err)
		}
		err = DecodeInflated(bytes.NewReader(base), int64(len(base)), &again, &back)
		if err != nil || !bytes.Equal(back.Bytes(), out.Bytes()) {
			t.Fatalf("round trip of the decoded target: %v", err)
		}
	})
}
