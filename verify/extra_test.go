package verify

import (
	"encoding/hex"
	"testing"
)

// The check values of the CRC catalogue (reveng.sourceforge.io/crc-catalogue)
// over "123456789", and FIPS 180-2's sha-384 of "abc".
var extraVectors = []struct{ key, in, want string }{
	{"crc64nvme", "123456789", "ae8b14860a799888"},
	{"crc32", "123456789", "cbf43926"},
	{"crc32c", "123456789", "e3069283"},
	{"sha-384", "abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"},
}

func TestExtraAlgorithms(t *testing.T) {
	for _, v := range extraVectors {
		a, ok := Find(v.key)
		if !ok {
			t.Fatalf("Find(%q) not found", v.key)
		}
		h := a.New()
		h.Write([]byte(v.in))
		got := h.Sum(nil)
		if hex.EncodeToString(got) != v.want || len(got) != a.Size {
			t.Errorf("%s(%q) = %x (%d bytes), want %s (%d bytes)", v.key, v.in, got, len(got), v.want, a.Size)
		}
	}
}

func TestExtraNotInRegistry(t *testing.T) {
	for _, a := range Extra {
		if _, ok := Lookup(a.Key); ok {
			t.Errorf("Lookup(%q) found an unregistered algorithm", a.Key)
		}
		if _, err := ParseWant(a.Key + "=5"); err == nil {
			t.Errorf("ParseWant(%q) accepted an unregistered algorithm: it must never be sent in Want-*", a.Key)
		}
	}
	if _, err := ParseList("sha-384,crc64nvme"); err != nil {
		t.Errorf("ParseList of extra algorithms: %v", err)
	}
}

// The hash state of the extra algorithms can be saved for -C.
func TestExtraHasherState(t *testing.T) {
	h := NewHasher(Extra)
	h.Write([]byte("1234"))
	st, err := h.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	g := NewHasher(Extra)
	if err := g.UnmarshalBinary(st); err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("56789"))
	for _, d := range g.Sums() {
		if d.Algorithm == "crc64nvme" && hex.EncodeToString(d.Value) != "ae8b14860a799888" {
			t.Errorf("restored crc64nvme = %x", d.Value)
		}
	}
}
