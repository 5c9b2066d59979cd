package cmd

import "testing"

// A small live heap may grow by at least gcHeadroom between collections;
// a large one collects at gcPercent, as before.
func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 1600}, {1 << 20, 1600}, {4 << 20, 1600}, {10 << 20, 800}, {16 << 20, 400}, {200 << 20, 400},
	} {
		got := gcPercentFor(c.live)
		if got != c.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
		if g := max(c.live, gcHeapMinimum) * uint64(got) / 100; g < gcHeadroom || got > gcPercent && g >= 2*gcHeadroom {
			t.Errorf("gcPercentFor(%d MiB) = %d: growth %d MiB, want %d to %d", c.live>>20, got, g>>20, gcHeadroom>>20, 2*gcHeadroom>>20)
		}
	}
}
