package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"
	"testing/iotest"
)

// randomBytes returns n deterministic pseudo-random bytes.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// separateSums hashes data with each algorithm on its own, the reference
// the Hasher must agree with.
func separateSums(algs []Algorithm, data []byte) []Digest {
	out := make([]Digest, len(algs))
	for i, a := range algs {
		h := a.New()
		h.Write(data)
		out[i] = Digest{Algorithm: a.Key, Value: h.Sum(nil)}
	}
	return out
}

// Sizes at the edges of the parallel threshold and of Sum's buffer.
var hasherSizes = []int{0, 1, pipeFrom - 1, pipeFrom, pipeFrom + 1, 256<<10 + 1, 1<<20 + 7}

func TestHasherMatchesSeparateSums(t *testing.T) {
	data := randomBytes(1, 1<<20+7)
	for _, n := range hasherSizes {
		t.Run(fmt.Sprint("size ", n), func(t *testing.T) { testHasherSize(t, data[:n]) })
	}
}

func testHasherSize(t *testing.T, p []byte) {
	n := len(p)
	want := separateSums(Algorithms, p)
	t.Run("one write", func(t *testing.T) {
		h := NewHasher(Algorithms)
		defer h.Close()
		h.Write(p)
		if got := h.Sums(); !reflect.DeepEqual(got, want) {
			t.Errorf("size %d: Sums = %v, want %v", n, got, want)
		}
		if h.Written() != int64(n) {
			t.Errorf("Written = %d, want %d", h.Written(), n)
		}
	})
	readers := map[string]func(io.Reader) io.Reader{
		"plain":     func(r io.Reader) io.Reader { return r },
		"one byte":  iotest.OneByteReader,
		"half":      iotest.HalfReader,
		"data+EOF":  iotest.DataErrReader,
		"only read": func(r io.Reader) io.Reader { return struct{ io.Reader }{r} },
	}
	for name, wrap := range readers {
		if name == "one byte" && n > 1<<16 {
			continue // slow and no different
		}
		t.Run("Sum "+name, func(t *testing.T) {
			got, written, err := Sum(wrap(bytes.NewReader(p)), Algorithms)
			if err != nil || written != int64(n) || !reflect.DeepEqual(got, want) {
				t.Errorf("size %d: Sum = %v, %d, %v; want %v, %d", n, got, written, err, want, n)
			}
		})
	}
}

func TestHasherSumError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(make([]byte, 100)), iotest.ErrReader(boom))
	got, n, err := Sum(r, Algorithms[:2])
	if !errors.Is(err, boom) || got != nil || n != 100 {
		t.Errorf("Sum = %v, %d, %v; want nil, 100, %v", got, n, err, boom)
	}
}

// Writes of every size in between, in a pattern that mixes small and large,
// exercise switching between the sequential and the concurrent path.
func TestHasherMixedWrites(t *testing.T) {
	data := randomBytes(2, 3<<20)
	algs := []Algorithm{mustLookup(t, "sha-256"), mustLookup(t, "sha-512"), mustLookup(t, "crc32c")}
	h := NewHasher(algs)
	defer h.Close()
	r := rand.New(rand.NewPCG(3, 4))
	for off := 0; off < len(data); {
		n := min(len(data)-off, r.IntN(2*pipeFrom)+[]int{0, 200 << 10}[r.IntN(2)])
		h.Write(data[off : off+n])
		off += n
	}
	if got, want := h.Sums(), separateSums(algs, data); !reflect.DeepEqual(got, want) {
		t.Errorf("Sums = %v, want %v", got, want)
	}
}

func TestHasherConcurrentPath(t *testing.T) {
	big := make([]byte, pipeFrom)
	small := make([]byte, pipeFrom/2-1)
	sha256, sha512 := mustLookup(t, "sha-256"), mustLookup(t, "sha-512")
	tests := []struct {
		name string
		algs []Algorithm
		p    []byte
		pipe bool
	}{
		{"two algorithms, big write", []Algorithm{sha256, sha512}, big, true},
		{"eight algorithms, big write", Algorithms, big, true},
		{"two algorithms, small writes", []Algorithm{sha256, sha512}, small, false},
		{"one algorithm, big write", []Algorithm{sha256}, big, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHasher(tt.algs)
			h.Write(tt.p)
			h.Write(tt.p)
			if got := h.p != nil; got != tt.pipe {
				t.Fatalf("pipeline started = %v, want %v", got, tt.pipe)
			}
			if want := piped(tt.algs); tt.pipe && len(h.p.work) != want {
				t.Errorf("%d goroutines for %d algorithms, want one per algorithm not inline (%d)", len(h.p.work), len(tt.algs), want)
			}
			sums := h.Sums()
			// Writing after Sums goes on, and Close is idempotent.
			h.Write(tt.p)
			if err := h.Close(); err != nil || h.p != nil {
				t.Errorf("Close = %v, pipeline left %v", err, h.p)
			}
			if err := h.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
			all := bytes.Repeat(tt.p, 3)
			if got, want := h.Sums(), separateSums(tt.algs, all); !reflect.DeepEqual(got, want) {
				t.Errorf("Sums after more writes = %v, want %v", got, want)
			}
			if want := separateSums(tt.algs, all[:2*len(tt.p)]); !reflect.DeepEqual(sums, want) {
				t.Errorf("first Sums = %v, want %v", sums, want)
			}
		})
	}
}

// The pipeline never holds more than its ring, whatever is written, and
// every algorithm hashes every byte exactly once (counted, not timed).
func TestHasherPipelineBounded(t *testing.T) {
	algs := []Algorithm{mustLookup(t, "sha-256"), mustLookup(t, "crc32c")}
	data := randomBytes(5, 8<<20+3)
	before := []int64{Hashed("sha-256"), Hashed("crc32c")}
	h := NewHasher(algs)
	defer h.Close()
	for off := 0; off < len(data); off += 1 << 20 {
		h.Write(data[off:min(off+1<<20, len(data))])
		if h.p != nil {
			if n := len(h.p.free) + len(h.p.work[0]); n > pipeSlots {
				t.Fatalf("%d slots in the ring, want at most %d", n, pipeSlots)
			}
		}
	}
	if got, want := h.Sums(), separateSums(algs, data); !reflect.DeepEqual(got, want) {
		t.Errorf("Sums = %v, want %v", got, want)
	}
	if h.p == nil || len(h.p.free) != pipeSlots {
		t.Errorf("after Sums the ring is not back whole")
	}
	for i, a := range algs {
		if got := Hashed(a.Key) - before[i]; got != int64(len(data)) {
			t.Errorf("%s hashed %d bytes, want %d", a.Key, got, len(data))
		}
	}
}

func TestHasherAlgorithms(t *testing.T) {
	h := NewHasher(Algorithms[:3])
	defer h.Close()
	if got := h.Algorithms(); !reflect.DeepEqual(got, Algorithms[:3]) {
		t.Errorf("Algorithms = %v", got)
	}
	if got := NewHasher(nil).Sums(); len(got) != 0 {
		t.Errorf("Sums with no algorithms = %v, want none", got)
	}
}

// The unix checksums follow the hash.Hash contract: Sum appends and does not
// change the state, Reset starts over.
func TestUnixHashContract(t *testing.T) {
	for _, key := range []string{"unixsum", "unixcksum"} {
		a := mustLookup(t, key)
		h := a.New()
		h.Write([]byte(bodyHelloNoLF))
		first := h.Sum([]byte("prefix"))
		if string(first[:6]) != "prefix" || len(first) != 6+a.Size || h.Size() != a.Size || h.BlockSize() != 1 {
			t.Errorf("%s: Sum(prefix) = %x, Size %d, BlockSize %d", key, first, h.Size(), h.BlockSize())
		}
		if again := h.Sum([]byte("prefix")); !bytes.Equal(first, again) {
			t.Errorf("%s: second Sum = %x, want %x", key, again, first)
		}
		h.Reset()
		if got, want := h.Sum(nil), a.New().Sum(nil); !bytes.Equal(got, want) {
			t.Errorf("%s: Sum after Reset = %x, want %x", key, got, want)
		}
	}
}

func mustLookup(t testing.TB, key string) Algorithm {
	t.Helper()
	a, ok := Lookup(key)
	if !ok {
		t.Fatalf("Lookup(%q) failed", key)
	}
	return a
}

// BenchmarkHasher measures each algorithm, and sha-256+sha-512 together,
// with 1 MiB writes, as hdig sum does them.
func BenchmarkHasher(b *testing.B) {
	buf := randomBytes(5, 1<<20)
	run := func(b *testing.B, algs []Algorithm) {
		h := NewHasher(algs)
		defer h.Close()
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			h.Write(buf)
		}
	}
	for _, a := range Algorithms {
		b.Run(a.Key, func(b *testing.B) { run(b, []Algorithm{a}) })
	}
	b.Run("sha-256+sha-512", func(b *testing.B) {
		run(b, []Algorithm{mustLookup(b, "sha-256"), mustLookup(b, "sha-512")})
	})
}
