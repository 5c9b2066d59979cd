package zsync

import (
	"bytes"
	"testing"
)

// TestSeedAtSegments: a seed scanned in parallel segments finds every
// block a single scan finds, blocks straddling the segment boundaries and
// the zero-padded last block included, for seeds shifted by insertions.
func TestSeedAtSegments(t *testing.T) {
	smallSegments(t)
	target := randomBytes(21, int(3*parallelMin+1234)) // short last block
	for _, c := range []struct {
		name string
		seed []byte
	}{
		{"same", target},
		{"insert at a boundary", splice(target[:parallelMin*3/2], []byte("seven b"), target[parallelMin*3/2:])},
		{"insert early", splice(target[:777], randomBytes(22, 5000), target[777:])},
	} {
		for _, workers := range []int{1, 2, 3, 5} {
			ctl := makeControl(t, target, 2048)
			out := &memFile{}
			m := NewMatcher(ctl, out)
			if err := m.SeedAt(bytes.NewReader(c.seed), int64(len(c.seed)), workers); err != nil {
				t.Fatal(err)
			}
			single := NewMatcher(ctl, &memFile{})
			if err := single.Seed(bytes.NewReader(c.seed)); err != nil {
				t.Fatal(err)
			}
			if m.FromSeed != single.FromSeed {
				t.Errorf("%s, %d workers: %d bytes from the seed, want %d as one scan finds", c.name, workers, m.FromSeed, single.FromSeed)
			}
			for _, r := range m.Missing() {
				if _, err := m.WriteFetched(r.Start, bytes.NewReader(target[r.Start:r.End])); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Finish(out); err != nil {
				t.Fatalf("%s, %d workers: %v", c.name, workers, err)
			}
		}
	}
}

// TestSeedAtRepetitiveWork: with segments scanned at once, a target of
// one block repeated keeps the work linear: each segment retires what any
// scan found, so MD4s and candidates stay <= workers × (blocks + seed).
func TestSeedAtRepetitiveWork(t *testing.T) {
	target := append(make([]byte, 64<<10), randomBytes(13, 16)...)
	smallSegments(t)
	seed := make([]byte, parallelMin+100)
	c := makeControl(t, target, 16)
	m := NewMatcher(c, &memFile{})
	if err := m.SeedAt(bytes.NewReader(seed), int64(len(seed)), 2); err != nil {
		t.Fatal(err)
	}
	if m.FromSeed != 64<<10 {
		t.Fatalf("%d bytes found, want %d", m.FromSeed, 64<<10)
	}
	if limit := 2 * int64(c.Blocks()+len(seed)); m.Probed > limit || m.Tested > limit {
		t.Errorf("%d candidates looked at, %d MD4s, want at most %d", m.Probed, m.Tested, limit)
	}
}

// smallSegments lets SeedAt split seeds from 64 KiB for the test.
func smallSegments(t *testing.T) {
	old := parallelMin
	parallelMin = 64 << 10
	t.Cleanup(func() { parallelMin = old })
}

// TestSeedAtRunEndingAtBoundary: the last block of a run of matching
// blocks has no pair to be looked up by; the serial scan finds it as the
// continuation of the run (hint). A segment's run that reaches its limit
// goes on by that one block, so SeedAt finds what Seed finds wherever the
// segments meet.
func TestSeedAtRunEndingAtBoundary(t *testing.T) {
	old := parallelMin
	parallelMin = 1
	t.Cleanup(func() { parallelMin = old })
	const bs = 256
	target := randomBytes(71, 4*bs+248)
	c, err := Read(bytes.NewReader(encode(t, makeControl(t, target, bs))))
	if err != nil {
		t.Fatal(err)
	}
	for pre := 0; pre <= 2*bs; pre += 7 {
		seed := splice(randomBytes(72, pre), target, randomBytes(73, 100)) // the short last block is not found
		ref := NewMatcher(c, &memFile{})
		if err := ref.Seed(bytes.NewReader(seed)); err != nil {
			t.Fatal(err)
		}
		for workers := 2; workers <= 4; workers++ {
			m := NewMatcher(c, &memFile{})
			if err := m.SeedAt(bytes.NewReader(seed), int64(len(seed)), workers); err != nil {
				t.Fatal(err)
			}
			if m.MissingBytes() != ref.MissingBytes() {
				t.Errorf("%d junk bytes before, %d segments: %d bytes missing, want %d as one scan", pre, workers, m.MissingBytes(), ref.MissingBytes())
			}
		}
	}
}
