package recompress

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzContract: any input ends in nil or ErrCorrupt, with no panic, and
// writes no more than a compression of its bytes could.
func FuzzContract(f *testing.F) {
	f.Add(smallSample(f))
	f.Add(append([]byte{}, magic...))
	f.Add(append(append([]byte{}, magic...), tagEnd))
	f.Fuzz(func(t *testing.T, in []byte) {
		n := &countWriter{}
		err := Contract(bytes.NewReader(in), n)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
		if n.n > 2*int64(len(in))+1024 {
			t.Fatalf("%d bytes in gave %d out", len(in), n.n)
		}
	})
}

// FuzzExpand: whatever the file, its expanded form contracts to it.
func FuzzExpand(f *testing.F) {
	f.Add(smallFile())
	f.Add(zlibbed(text(1, 3000), 1, false))
	f.Add([]byte{0x78, 0x9c})
	f.Fuzz(func(t *testing.T, file []byte) {
		var x, back bytes.Buffer
		if _, err := Expand(bytes.NewReader(file), int64(len(file)), &x); err != nil {
			t.Fatal(err)
		}
		if err := Contract(&x, &back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.Bytes(), file) {
			t.Fatal("the expanded form does not contract to the file")
		}
	})
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// smallFile is noise around two small streams Go reproduces.
func smallFile() []byte {
	return bytes.Join([][]byte{noise(1, 100), zlibbed(text(1, 3000), 1, false), noise(2, 50), zlibbed(text(2, 3000), 6, false)}, nil)
}

// smallSample is smallFile's expanded form.
func smallSample(t testing.TB) []byte {
	x, st := expand(t, smallFile())
	if st.Streams != 2 {
		t.Fatalf("the seed has %d streams, want 2", st.Streams)
	}
	return x
}
