package keyset

import (
	"strconv"
	"testing"
)

func TestSetBounded(t *testing.T) {
	s := Set{Max: 3}
	if !s.Add("a") || s.Add("a") || !s.Has("a") || s.Has("b") {
		t.Fatal("Add or Has wrong for one key")
	}
	for i := range 10 {
		s.Add(strconv.Itoa(i))
		if n := len(s.keys); n > 3 {
			t.Fatalf("%d keys held, want at most 3", n)
		}
	}
}
