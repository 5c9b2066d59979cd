package patch

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// dataSet is a base and a target derived from it by a kind of edit.
type dataSet struct {
	name         string
	base, target []byte
}

// random returns n deterministic pseudo-random bytes.
func random(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x6864696721))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// scatteredEdits overwrites k short spans of a copy of b.
func scatteredEdits(b []byte, seed uint64, k int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	out := bytes.Clone(b)
	for range k {
		off, n := r.IntN(len(out)-64), 1+r.IntN(32)
		for i := range n {
			out[off+i] = byte(r.Uint32())
		}
	}
	return out
}

// shiftingInserts inserts and deletes k spans, shifting what follows.
func shiftingInserts(b []byte, seed uint64, k int) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	out := bytes.Clone(b)
	for i := range k {
		off := r.IntN(len(out) - 512)
		if i%3 == 2 {
			out = append(out[:off], out[off+1+r.IntN(300):]...)
			continue
		}
		ins := random(seed+uint64(i), 1+r.IntN(400))
		out = append(out[:off], append(ins, out[off:]...)...)
	}
	return out
}

var words = strings.Fields(`the of and to in is that it for was on are as with his they at be this
from have or by one had not but what all were when we there can an your which their said if do will
each about how up out them then she many some so these would other into has more her two like him see
time could no make than first been its who now people my made over did down only way find use may water`)

// text returns deterministic English-like lines of about n bytes.
func text(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	var b bytes.Buffer
	for b.Len() < n {
		for w := 4 + r.IntN(10); w > 0; w-- {
			b.WriteString(words[r.IntN(len(words))])
			if w > 1 {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// textEdits changes, inserts and deletes words and lines of a text.
func textEdits(b []byte, seed uint64, k int) []byte {
	r := rand.New(rand.NewPCG(seed, 4))
	lines := bytes.SplitAfter(b, []byte("\n"))
	for range k {
		i := r.IntN(len(lines) - 1)
		switch r.IntN(4) {
		case 0:
			lines = append(lines[:i], lines[i+1:]...)
		case 1:
			lines = append(lines[:i], append([][]byte{text(r.Uint64(), 40)}, lines[i:]...)...)
		default:
			f := bytes.Fields(lines[i])
			f[r.IntN(len(f))] = []byte(words[r.IntN(len(words))] + "s")
			lines[i] = append(bytes.Join(f, []byte(" ")), '\n')
		}
	}
	return bytes.Join(lines, nil)
}

// dataSets are the interop and size sets: scattered edits, shifting
// insertions and text edits, 1–4 MiB.
func dataSets(t testing.TB) []dataSet {
	t.Helper()
	bin := random(1, 3<<20)
	txt := text(2, 1<<20)
	return []dataSet{
		{"scattered", bin, scatteredEdits(bin, 3, 200)},
		{"shifting", bin, shiftingInserts(bin, 4, 150)},
		{"text", txt, textEdits(txt, 5, 300)},
		{"grown", bin[:1<<20], append(bytes.Clone(bin[:1<<20]), bin[2<<20:]...)},
	}
}

// encodeVCDIFF is EncodeVCDIFF on byte slices.
func encodeVCDIFF(t testing.TB, base, target []byte, opts ...Option) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := EncodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &out, opts...); err != nil {
		t.Fatalf("EncodeVCDIFF: %v", err)
	}
	return out.Bytes()
}

// decodeVCDIFF is DecodeVCDIFF on byte slices.
func decodeVCDIFF(base, delta []byte, opts ...Option) ([]byte, error) {
	var out bytes.Buffer
	err := DecodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(delta), &out, opts...)
	return out.Bytes(), err
}
