package verify

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// FuzzHasherState restores any bytes as the saved state of a Hasher of
// every algorithm: a refused state leaves the Hasher as it was, with an
// ErrHasherState; a restored one saves again to a state that restores, in
// another Hasher, to the same count and the same sums from there on.
func FuzzHasherState(f *testing.F) {
	for _, data := range [][]byte{nil, []byte("abc"), bytes.Repeat([]byte("0123456789"), 100)} {
		h := NewHasher(Algorithms)
		h.Write(data)
		st, err := h.MarshalBinary()
		h.Close()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(st)
		f.Add(st[:len(st)/2])
	}
	f.Add([]byte("hdig-hasher\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := NewHasher(Algorithms)
		defer h.Close()
		h.Write([]byte("before"))
		before, err := h.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := h.UnmarshalBinary(data); err != nil {
			after, _ := h.MarshalBinary()
			if !errors.Is(err, ErrHasherState) || !bytes.Equal(before, after) || h.Written() != 6 {
				t.Fatalf("refused state (%v) changed the Hasher", err)
			}
			return
		}
		if h.Written() < 0 || h.Written() > 1<<62 {
			t.Fatalf("restored count %d", h.Written())
		}
		saved, err := h.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary after a restore: %v", err)
		}
		g := NewHasher(Algorithms)
		defer g.Close()
		if err := g.UnmarshalBinary(saved); err != nil || g.Written() != h.Written() {
			t.Fatalf("a restored state saved again does not restore: %v, count %d want %d", err, g.Written(), h.Written())
		}
		h.Write([]byte("after"))
		g.Write([]byte("after"))
		if hs, gs := h.Sums(), g.Sums(); !reflect.DeepEqual(hs, gs) {
			t.Fatalf("sums differ: %v, %v", hs, gs)
		}
	})
}
