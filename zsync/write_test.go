package zsync

import (
	"bytes"
	"testing"
)

// countingFile is an in-memory WriterAt that counts its writes.
type countingFile struct {
	b      []byte
	writes int
}

func (f *countingFile) WriteAt(p []byte, off int64) (int, error) {
	f.writes++
	if end := int(off) + len(p); end > len(f.b) {
		f.b = append(f.b, make([]byte, end-len(f.b))...)
	}
	return copy(f.b[off:], p), nil
}

// TestSeedWritesAreGathered: blocks found one after another in a seed
// reach the output in writes of up to writeBehind bytes, not one write per
// block; fetched blocks too.
func TestSeedWritesAreGathered(t *testing.T) {
	data := randomBytes(3, 3<<20)
	c := makeControl(t, data, 2048)
	out := &countingFile{}
	m := NewMatcher(c, out)
	// The seed lacks the middle 64 KiB: two runs of blocks, then a fetch.
	hole := int64(1<<20 + 8192)
	seed := splice(data[:hole], make([]byte, 64<<10), data[hole+64<<10:])
	if err := m.Seed(bytes.NewReader(seed)); err != nil {
		t.Fatal(err)
	}
	if want := 3 + 2; out.writes > want {
		t.Errorf("seed of %d bytes in 2 runs: %d writes, want at most %d", len(seed), out.writes, want)
	}
	before := out.writes
	for _, r := range m.Missing() {
		if _, err := m.WriteFetched(r.Start, bytes.NewReader(data[r.Start:r.End])); err != nil {
			t.Fatal(err)
		}
	}
	if got := out.writes - before; got > 1 {
		t.Errorf("a fetched range of 64 KiB: %d writes, want 1", got)
	}
	if err := m.Done(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.b, data) {
		t.Fatal("rebuilt file differs from the target")
	}
}
