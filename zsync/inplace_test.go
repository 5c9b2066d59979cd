package zsync

import (
	"bytes"
	"testing"
)

// recordAt records the writes made to the output.
type recordAt struct{ n int }

func (r *recordAt) WriteAt(p []byte, off int64) (int, error) { r.n += len(p); return len(p), nil }

// TestSeedInPlace: the blocks of a part at their own place are taken
// without a write, a damaged block and the blocks past the part's end
// stay missing, and a short last block is checked zero-padded.
func TestSeedInPlace(t *testing.T) {
	data := randomBytes(5, 10*1024+300) // 11 blocks of 1 KiB, the last 300 bytes
	c := makeControl(t, data, 1024)
	part := bytes.Clone(data)
	part[3*1024+7] ^= 1 // block 3 damaged
	out := &recordAt{}
	m := NewMatcher(c, out)
	if err := m.SeedInPlace(bytes.NewReader(part), int64(len(part))); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(data) - 1024); m.FromSeed != want || out.n != 0 {
		t.Errorf("FromSeed %d, %d bytes written; want %d, 0", m.FromSeed, out.n, want)
	}
	if got := m.Missing(); len(got) != 1 || got[0] != (Range{Start: 3 * 1024, End: 4 * 1024}) {
		t.Errorf("Missing = %v, want block 3 only", got)
	}
	m = NewMatcher(c, out)
	if err := m.SeedInPlace(bytes.NewReader(part[:5*1024+10]), 5*1024+10); err != nil {
		t.Fatal(err)
	}
	if m.FromSeed != 4*1024 {
		t.Errorf("a part of 5 blocks and 10 bytes: FromSeed %d, want 4096 (blocks 0, 1, 2, 4)", m.FromSeed)
	}
}
