package recompress

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"
)

// text returns n bytes of compressible, seeded text.
func text(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "zeta ", "eta\t", "theta "}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		fmt.Fprintf(&b, "%d ", r.IntN(1000))
	}
	return b.Bytes()[:n]
}

func noise(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// zlibbed compresses p at level; flush adds a sync flush midway (a stream
// Go's writer does not write when fed the bytes whole).
func zlibbed(p []byte, level int, flush bool) []byte {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, level)
	if flush {
		w.Write(p[:len(p)/2])
		w.Flush()
		w.Write(p[len(p)/2:])
	} else {
		w.Write(p)
	}
	w.Close()
	return b.Bytes()
}

// sample is a file of noise around streams: three expanded (levels 1, 6
// and Huffman-only), and others left as they are: level 9 (not expanded),
// a flushed one, junk after a header, one too small, one inflating too far
// and a truncated one.
func sample() (file []byte, reproduced int) {
	var f bytes.Buffer
	f.Write(noise(1, 5000))
	for i, lv := range []int{1, 6, 9, -2} {
		f.Write(zlibbed(text(uint64(i), 40000), lv, false))
		f.Write(noise(uint64(10+i), 300))
	}
	f.Write(zlibbed(text(7, 40000), 6, true))                    // flushed: not reproduced
	f.Write([]byte{0x78, 0x9c, 1, 2, 3})                         // a header and junk
	f.Write(zlibbed(text(8, 20), 6, false))                      // too small
	f.Write(zlibbed(bytes.Repeat([]byte{'a'}, 1<<20), 6, false)) // inflates too far
	trunc := zlibbed(text(9, 40000), 1, false)
	f.Write(trunc[:len(trunc)-10]) // truncated
	return f.Bytes(), 3
}

func expand(t testing.TB, file []byte) ([]byte, Stats) {
	t.Helper()
	var x bytes.Buffer
	st, err := Expand(bytes.NewReader(file), int64(len(file)), &x)
	if err != nil {
		t.Fatal(err)
	}
	return x.Bytes(), st
}

func TestExpandContract(t *testing.T) {
	file, want := sample()
	x, st := expand(t, file)
	if st.Streams != want {
		t.Fatalf("expanded %d streams, want %d (%+v)", st.Streams, want, st)
	}
	if st.Raw != 3*40000 {
		t.Errorf("inflated %d bytes, want %d", st.Raw, 3*40000)
	}
	var back bytes.Buffer
	if err := Contract(bytes.NewReader(x), &back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), file) {
		t.Fatalf("contracted %d bytes differ from the %d expanded", back.Len(), len(file))
	}
	for i := range 4 {
		if in := bytes.Contains(x, text(uint64(i), 40000)); in != (i != 2) {
			t.Errorf("stream %d's bytes in the expanded form: %v, want %v (level 9 is not expanded)", i, in, i != 2)
		}
	}
}

func TestExpandNothing(t *testing.T) {
	for _, file := range [][]byte{nil, {0x78}, {0x78, 0x9c}, noise(3, 100000)} {
		x, st := expand(t, file)
		if st.Streams != 0 {
			t.Errorf("%d bytes: %d streams", len(file), st.Streams)
		}
		var back bytes.Buffer
		if err := Contract(bytes.NewReader(x), &back); err != nil || !bytes.Equal(back.Bytes(), file) {
			t.Errorf("%d bytes: round trip: %v", len(file), err)
		}
	}
}

// TestProbeBudget: a file of streams that inflate but that Go does not
// reproduce costs bounded work, and still round-trips.
func TestProbeBudget(t *testing.T) {
	one := zlibbed(text(5, 100000), 6, true)
	var f bytes.Buffer
	for f.Len() < 1<<20 {
		f.Write(one)
	}
	file := f.Bytes()
	x, st := expand(t, file)
	if limit := probeBudget*int64(len(file)) + probeSlack + MaxRatio<<20; st.Probed > limit {
		t.Errorf("probing inflated %d bytes, over the budget %d", st.Probed, limit)
	}
	var back bytes.Buffer
	if err := Contract(bytes.NewReader(x), &back); err != nil || !bytes.Equal(back.Bytes(), file) {
		t.Fatalf("round trip: %v", err)
	}
}

func TestContractRejects(t *testing.T) {
	file, _ := sample()
	good, _ := expand(t, file)
	stream := func(level byte, raw, packed uint64, crc uint32, body []byte) []byte {
		b := append([]byte{}, magic...)
		b = append(b, tagZlib, level)
		b = binary.AppendUvarint(b, raw)
		b = binary.AppendUvarint(b, packed)
		b = binary.BigEndian.AppendUint32(b, crc)
		return append(append(b, body...), tagEnd)
	}
	body := text(1, 4000)
	z := zlibbed(body, 6, false)
	crc := crc32.ChecksumIEEE(z)
	ok := stream(8, 4000, uint64(len(z)), crc, body)
	var back bytes.Buffer
	if err := Contract(bytes.NewReader(ok), &back); err != nil || !bytes.Equal(back.Bytes(), z) {
		t.Fatalf("a well-formed stream segment: %v", err)
	}
	for name, in := range map[string][]byte{
		"empty":           nil,
		"bad magic":       append([]byte("HDZX\x02"), tagEnd),
		"no end":          good[:len(good)-1],
		"after end":       append(append([]byte{}, good...), 0),
		"truncated":       good[:len(good)/2],
		"unknown tag":     append(append([]byte{}, magic...), 7),
		"level":           stream(12, 4000, uint64(len(z)), crc, body),
		"crc":             stream(8, 4000, uint64(len(z)), crc+1, body),
		"packed size":     stream(8, 4000, uint64(len(z))+1, crc, body),
		"other level":     stream(3, 4000, uint64(len(z)), crc, body),
		"ratio":           stream(8, 4000, 200, crc, body),
		"too small":       stream(8, 40, 10, crc, body[:40]),
		"raw over MaxRaw": stream(8, MaxRaw+1, MaxRaw, crc, body),
		"raw over input":  append(append(append([]byte{}, magic...), tagRaw), binary.AppendUvarint(nil, 1<<40)...),
		"varint overflow": append(append(append([]byte{}, magic...), tagRaw), bytes.Repeat([]byte{0xff}, 11)...),
	} {
		err := Contract(bytes.NewReader(in), &bytes.Buffer{})
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// TestProbeBudgetHeaders: a file made of nothing but zlib headers costs
// reads within the budget, not a buffer's read per header.
func TestProbeBudgetHeaders(t *testing.T) {
	file := bytes.Repeat([]byte{0x78, 0x9c}, 1<<20)
	src := &countingReaderAt{r: bytes.NewReader(file)}
	var x bytes.Buffer
	if _, err := Expand(src, int64(len(file)), &x); err != nil {
		t.Fatal(err)
	}
	if limit := probeBudget*int64(len(file)) + probeSlack + 2*int64(len(file)) + 64<<10; src.n > limit {
		t.Errorf("read %d bytes of a %d-byte file, over %d", src.n, len(file), limit)
	}
	var back bytes.Buffer
	if err := Contract(&x, &back); err != nil || !bytes.Equal(back.Bytes(), file) {
		t.Fatalf("round trip: %v", err)
	}
}

type countingReaderAt struct {
	r *bytes.Reader
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestContractStopsPastPacked: a segment whose recompression runs past
// the size it names fails there, not after compressing all it claims.
func TestContractStopsPastPacked(t *testing.T) {
	raw := noise(4, 1<<20)
	in := append([]byte{}, magic...)
	in = append(in, tagZlib, 8)
	in = binary.AppendUvarint(in, uint64(len(raw)))
	in = binary.AppendUvarint(in, 64<<10)
	in = binary.BigEndian.AppendUint32(in, 0)
	src := &countingReaderAt{r: bytes.NewReader(append(append(in, raw...), tagEnd))}
	err := Contract(io.NewSectionReader(src, 0, 1<<30), &bytes.Buffer{})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, want ErrCorrupt", err)
	}
	if src.n > 512<<10 {
		t.Errorf("read %d bytes of the 1 MiB the segment claims before failing, want under 512 KiB", src.n)
	}
}
