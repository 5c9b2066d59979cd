package zsync

import (
	"bytes"
	"testing"
)

// An origin may answer each round of range requests with one block
// only. Missing, asked again after every round, read the record of every
// block each time: blocks² reads over the run (1024 blocks: half a
// million). It now finds each range's start and end in a few words of a
// summarised bit set, so its work follows the ranges it returns.
func TestMissingOneBlockPerRound(t *testing.T) {
	const bs, n = 64, 1024
	data := randomBytes(11, bs*n)
	c := makeControl(t, data, bs)
	for _, tc := range []struct {
		name string
		pick func(r []Range) Range // the block the origin answers with
	}{
		{"first", func(r []Range) Range { return r[0] }},
		{"last", func(r []Range) Range { return r[len(r)-1] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMatcher(c, &memFile{})
			rounds := 0
			for ms := m.Missing(); len(ms) > 0; ms = m.Missing() {
				r := tc.pick(ms)
				off := r.Start
				if _, err := m.WriteFetched(off, bytes.NewReader(data[off:off+bs])); err != nil {
					t.Fatal(err)
				}
				rounds++
			}
			if rounds != n {
				t.Fatalf("%d rounds, want %d", rounds, n)
			}
			if err := m.Done(); err != nil {
				t.Fatal(err)
			}
			// A few words a range returned, and a few a call: linear in
			// the blocks, not quadratic.
			if max := int64(64 * n); m.Looked > max {
				t.Errorf("Missing read %d words over %d rounds of %d blocks, want at most %d", m.Looked, rounds, n, max)
			}
			t.Logf("%d words read", m.Looked)
		})
	}
}

// The runs of a blockSet are those of a plain record of its blocks, at
// sizes around the words and levels of its summaries.
func TestBlockSetRuns(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 4095, 4096, 4097, 300_001} {
		s := newBlockSet(n)
		have := make([]bool, n)
		r := randomBytes(uint64(n), 4*n+8)
		for step := 0; step < 6; step++ {
			for k := 0; k < n/3+1 && n > 0; k++ {
				i := int(uint32(r[k%len(r)])|uint32(r[(k+step)%len(r)])<<8|uint32(r[(3*k+1)%len(r)])<<16) % n
				if s.take(i) == have[i] {
					t.Fatalf("n %d: take(%d) said %v, the block was present: %v", n, i, !have[i], have[i])
				}
				have[i] = true
			}
			var got, want [][2]int
			s.runs(func(i, j int) { got = append(got, [2]int{i, j}) })
			for i := 0; i < n; i++ {
				if have[i] {
					continue
				}
				j := i
				for j < n && !have[j] {
					j++
				}
				want = append(want, [2]int{i, j})
				i = j
			}
			if len(got) != len(want) {
				t.Fatalf("n %d step %d: %d runs, want %d", n, step, len(got), len(want))
			}
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("n %d step %d: run %d is %v, want %v", n, step, k, got[k], want[k])
				}
			}
		}
		for i := 0; i < n; i++ {
			s.take(i)
		}
		if s.count.Load() != int64(n) || s.runs(func(int, int) { t.Fatal("a run when every block is present") }) < 0 {
			t.Fatal("count")
		}
	}
}
