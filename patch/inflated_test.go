package patch

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hdig/hdig/internal/peertest"
	"github.com/hdig/hdig/recompress"
)

// zlibText returns seeded text of n bytes with line k edited when edit,
// and its zlib stream at level 1 (as Go's linker writes DWARF).
func zlibText(seed uint64, n int, edit bool) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	var b bytes.Buffer
	for line := 0; b.Len() < n; line++ {
		if edit && line == 500 {
			b.WriteString("an edited line\n")
		}
		fmt.Fprintf(&b, "%d: %x %d\n", line, r.Uint32()%4096, r.IntN(100))
	}
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, 1)
	w.Write(b.Bytes()[:n])
	w.Close()
	return z.Bytes()
}

// zipped is a version like a Go binary's: code around a zlib stream,
// with the stream's text edited near its start in the new version.
func zipped(edit bool) []byte {
	r := rand.New(rand.NewPCG(9, 9))
	code := make([]byte, 200<<10)
	for i := range code {
		code[i] = byte(r.Uint32())
	}
	return bytes.Join([][]byte{code, zlibText(1, 400<<10, edit), code[:1000]}, nil)
}

func TestInflatedDelta(t *testing.T) {
	base, target := zipped(false), zipped(true)
	var plain, inflated bytes.Buffer
	if err := EncodeList([]string{"vcdiff"}, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &plain); err != nil {
		t.Fatal(err)
	}
	for _, ims := range [][]string{{InflatedIM}, {InflatedIM, "zstd"}} {
		inflated.Reset()
		if err := EncodeList(ims, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &inflated); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := Undo(ims, bytes.NewReader(base), int64(len(base)), bytes.NewReader(inflated.Bytes()), &got, WithMaxOutput(int64(len(target)))); err != nil {
			t.Fatalf("%v: %v", ims, err)
		}
		if !bytes.Equal(got.Bytes(), target) {
			t.Fatalf("%v: rebuilt %d bytes differ from the target's %d", ims, got.Len(), len(target))
		}
	}
	t.Logf("vcdiff %d B, %s %d B", plain.Len(), InflatedIM, inflated.Len())
	if inflated.Len()*10 > plain.Len() {
		t.Errorf("%s delta is %d bytes, want under a tenth of plain vcdiff's %d", InflatedIM, inflated.Len(), plain.Len())
	}
}

func TestInflatedNothingToInflate(t *testing.T) {
	base, target := []byte("one version"), []byte("another version")
	err := Encode(InflatedIM, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &bytes.Buffer{})
	if !errors.Is(err, ErrNothingInflated) {
		t.Fatalf("got %v, want ErrNothingInflated", err)
	}
}

// TestInflatedDecodeFails: a limit, a damaged delta and a wrong base each
// fail with their kind of error, never a panic or a hang.
func TestInflatedDecodeFails(t *testing.T) {
	base, target := zipped(false), zipped(true)
	var d bytes.Buffer
	if err := Encode(InflatedIM, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &d); err != nil {
		t.Fatal(err)
	}
	undo := func(base, delta []byte, opts ...Option) error {
		return Undo([]string{InflatedIM}, bytes.NewReader(base), int64(len(base)), bytes.NewReader(delta), &bytes.Buffer{}, opts...)
	}
	if err := undo(base, d.Bytes(), WithMaxOutput(int64(len(target)-1))); !errors.Is(err, ErrLimit) {
		t.Errorf("one byte over WithMaxOutput: %v, want ErrLimit", err)
	}
	if err := undo(base, d.Bytes()[:d.Len()-3]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated delta: %v, want ErrCorrupt", err)
	}
	other := zipped(true)
	other[len(other)-1] ^= 1 // the raw tail differs: the expanded base too
	if err := undo(other[:len(other)-500], d.Bytes()); err == nil {
		t.Errorf("a shorter base: no error")
	}
	// A base whose stream another level wrote: the delta copies its bytes
	// from the wrong expanded base, and a stream's check fails.
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, 9)
	zw.Write(bytes.Repeat([]byte("x"), 1000))
	zw.Close()
	if err := undo(z.Bytes(), d.Bytes()); !errors.Is(err, ErrCorrupt) {
		t.Errorf("another base: %v, want ErrCorrupt", err)
	}
}

// TestXdelta3DecodesInflated: the delta is plain VCDIFF between the
// expanded forms; xdelta3 -d rebuilds the expanded target from the
// expanded base, and it contracts to the target.
func TestXdelta3DecodesInflated(t *testing.T) {
	xd := xdelta3(t)
	base, target := zipped(false), zipped(true)
	var d, bx bytes.Buffer
	if err := Encode(InflatedIM, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &d); err != nil {
		t.Fatal(err)
	}
	if _, err := recompress.Expand(bytes.NewReader(base), int64(len(base)), &bx); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	got := peertest.Run(t, xd, "-d", "-c", "-s", peertest.WriteFile(t, dir, "base.x", bx.Bytes()), peertest.WriteFile(t, dir, "delta", d.Bytes()))
	var out bytes.Buffer
	if err := recompress.Contract(bytes.NewReader(got), &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), target) {
		t.Fatal("xdelta3's expanded target does not contract to the target")
	}
}

// TestInflatedOtherBaseFails: a base that differs from the one the delta
// was made from in bytes the delta copies fails the windows' Adler-32;
// Undo rebuilt other bytes and returned nil.
func TestInflatedOtherBaseFails(t *testing.T) {
	base, target := zipped(false), zipped(true)
	var d bytes.Buffer
	if err := Encode(InflatedIM, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &d, WithChecksum(false)); err != nil {
		t.Fatal(err)
	}
	other := bytes.Clone(base)
	other[1000] ^= 0xff // raw bytes before the stream, copied by the delta
	var got bytes.Buffer
	err := Undo([]string{InflatedIM}, bytes.NewReader(other), int64(len(other)), bytes.NewReader(d.Bytes()), &got)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("another base: %v (rebuilt the target: %v), want ErrCorrupt", err, bytes.Equal(got.Bytes(), target))
	}
}
