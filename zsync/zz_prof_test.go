package zsync

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

type discardAt struct{}

func (discardAt) WriteAt(p []byte, off int64) (int, error) { return len(p), nil }

func BenchmarkProfSeed64(b *testing.B) {
	r := rand.New(rand.NewPCG(12, 1))
	old := make([]byte, 64<<20)
	for i := range old {
		old[i] = byte(r.Uint32())
	}
	cur := bytes.Clone(old)
	step := len(cur) / 64
	for k := 0; k < 64; k++ {
		p := k*step + r.IntN(step-1024)
		for j := p; j < p+1024; j++ {
			cur[j] = byte(r.Uint32())
		}
	}
	c, err := Make(bytes.NewReader(cur), int64(len(cur)), MakeOptions{URL: "a.bin"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(old)))
	b.ResetTimer()
	for range b.N {
		m := NewMatcher(c, discardAt{})
		if err := m.SeedAt(bytes.NewReader(old), int64(len(old)), 1); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(m.Tested), "tested")
	}
}
