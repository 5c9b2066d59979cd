package patch

import (
	"bytes"
	"testing"
)

// FuzzEncodeVCDIFF: any base and target, at any level, window and index
// size, encode to a delta the decoder turns back into the target (the
// address modes, the matcher's prices and the self index decide what is
// written; none may write what does not decode to the target).
func FuzzEncodeVCDIFF(f *testing.F) {
	f.Add(fuzzBase, []byte(snarkTarget), uint8(6), uint8(12), uint8(16))
	rep := bytes.Repeat([]byte("abcabcabd"), 300)
	f.Add([]byte{}, rep, uint8(9), uint8(8), uint8(4))
	f.Add(rep[:700], append(bytes.Clone(rep[100:]), rep...), uint8(3), uint8(10), uint8(8))
	f.Add(random(1, 3000), scatteredEdits(random(1, 3000), 2, 9), uint8(1), uint8(9), uint8(6))
	f.Fuzz(func(t *testing.T, base, target []byte, level, window, index uint8) {
		if len(base) > 1<<16 || len(target) > 1<<16 {
			return
		}
		opts := []Option{WithLevel(int(level % 10)), WithWindowSize(1 << (6 + window%12)), WithIndexSize(1 << (4 + index%16))}
		delta := encodeVCDIFF(t, base, target, opts...)
		back, err := decodeVCDIFF(base, delta, fuzzOpts()...)
		if err != nil || !bytes.Equal(back, target) {
			t.Fatalf("level %d, window %d, index %d: decoded %d bytes, %v; want the target's %d",
				level%10, 1<<(6+window%12), 1<<(4+index%16), len(back), err, len(target))
		}
	})
}
