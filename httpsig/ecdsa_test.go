package httpsig

import (
	"bytes"
	"encoding/asn1"
	"math/big"
	"testing"
)

// TestDERToRSPads: r and s shorter than the field size are left-padded
// with zeros to 32 bytes each (§3.3.4), and convert back to the same DER.
func TestDERToRSPads(t *testing.T) {
	der, err := asn1.Marshal(ecdsaSig{big.NewInt(0x0102), big.NewInt(0x03)})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := DERToRS(der, 32)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 64)
	want[30], want[31], want[63] = 1, 2, 3
	if !bytes.Equal(rs, want) {
		t.Fatalf("r||s = %x, want %x", rs, want)
	}
	back, err := RSToDER(rs)
	if err != nil || !bytes.Equal(back, der) {
		t.Fatalf("RSToDER = %x, %v; want %x", back, err, der)
	}
	tooBig, _ := asn1.Marshal(ecdsaSig{new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)})
	for _, bad := range [][]byte{nil, {0x30, 0x00}, tooBig, append(der, 0)} {
		if _, err := DERToRS(bad, 32); err == nil {
			t.Errorf("DERToRS(%x) accepted", bad)
		}
	}
}
