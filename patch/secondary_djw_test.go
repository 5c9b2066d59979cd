package patch

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// djwBits writes codes MSB first into xdelta3's LSB-first bit stream.
type djwBits struct {
	out  []byte
	used uint
}

func (w *djwBits) put(code, n int) {
	for i := n - 1; i >= 0; i-- {
		if w.used%8 == 0 {
			w.out = append(w.out, 0)
		}
		w.out[len(w.out)-1] |= byte(code>>i&1) << (w.used % 8)
		w.used++
	}
}

// codeOf returns the canonical code of sym and its length.
func (h *huffman) codeOf(lens []byte, sym int) (int, int) {
	l := int(lens[sym])
	for i, s := range h.sorted {
		if int(s) == sym {
			return i + h.base[l], l
		}
	}
	panic("no code")
}

// TestHuffmanFastMatchesSlow decodes the same streams through the lookup
// table and a bit at a time, for complete, incomplete and over-subscribed
// codes and for random (often invalid) bits: same symbols, same errors,
// same bits left.
func TestHuffmanFastMatchesSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		lens := make([]byte, 256)
		maxLen := 1 + rng.IntN(djwMaxCodeLen)
		for i := range lens {
			if rng.IntN(4) > 0 {
				lens[i] = byte(1 + rng.IntN(maxLen))
			}
		}
		var slow, fast huffman
		slow.build(lens)
		fast.build(lens)
		fast.withFast()
		stream := make([]byte, 64+rng.IntN(256))
		for i := range stream {
			stream[i] = byte(rng.Uint32())
		}
		rs, rf := &bitReader{b: stream}, &bitReader{b: stream}
		for k := 0; ; k++ {
			a, errA := slow.decode(rs)
			b, errB := fast.next(rf)
			if a != b || (errA == nil) != (errB == nil) {
				t.Fatalf("round %d symbol %d: slow %d, %v; fast %d, %v", round, k, a, errA, b, errB)
			}
			ua, ra := rs.unread()
			ub, rb := rf.unread()
			if ua != ub || ra != rb {
				t.Fatalf("round %d symbol %d: slow leaves %d bytes %b, fast %d bytes %b", round, k, ua, ra, ub, rb)
			}
			if errA != nil {
				break
			}
		}
	}
}

// TestHuffmanFastWork decodes a stream of a complete code no longer than
// the table's reach: every symbol comes from the table, none bit by bit.
func TestHuffmanFastWork(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lens := make([]byte, 256)
	for i := range lens {
		lens[i] = 8
	}
	for i := range 64 { // 64 codes of 7 bits and 128 of 9 stay complete
		lens[i] = 7
	}
	for i := 64; i < 128; i++ {
		lens[i] = 9
	}
	for i := 128; i < 192; i++ {
		lens[i] = 9
	}
	var h huffman
	h.build(lens)
	h.withFast()
	var w djwBits
	want := make([]byte, 20000)
	for i := range want {
		want[i] = byte(rng.IntN(256))
		w.put(h.codeOf(lens, int(want[i])))
	}
	r := &bitReader{b: w.out}
	got := make([]byte, len(want))
	for i := range got {
		sym, err := h.next(r)
		if err != nil {
			t.Fatalf("symbol %d: %v", i, err)
		}
		got[i] = byte(sym)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("decoded symbols differ from those coded")
	}
	if r.slow != 0 {
		t.Fatalf("%d of %d symbols decoded bit by bit, want 0", r.slow, len(want))
	}
	if unused, rest := r.unread(); unused != 0 || rest != 0 {
		t.Fatalf("%d bytes and bits %b left", unused, rest)
	}
}
