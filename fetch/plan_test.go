package fetch

import (
	"bytes"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

func TestAutoParallel(t *testing.T) {
	for _, tt := range []struct {
		size int64
		want int
	}{{-1, 1}, {0, 1}, {16<<20 - 1, 1}, {16 << 20, 2}, {24 << 20, 3}, {32 << 20, 4}, {1 << 40, 4}} {
		if got := AutoParallel(tt.size); got != tt.want {
			t.Errorf("AutoParallel(%d) = %d, want %d", tt.size, got, tt.want)
		}
	}
}

func TestPieceSize(t *testing.T) {
	for _, tt := range []struct {
		total int64
		n     int
		want  int64
	}{{100, 1, 100}, {256 << 20, 4, 16 << 20}, {1 << 40, 4, 32 << 20}, {16 << 20, 2, 2 << 20}, {3 << 20, 4, 1 << 20}} {
		if got := pieceSize(tt.total, tt.n); got != tt.want {
			t.Errorf("pieceSize(%d, %d) = %d, want %d", tt.total, tt.n, got, tt.want)
		}
	}
}

func TestSpans(t *testing.T) {
	var s spans
	for _, x := range []span{{10, 20}, {30, 40}, {20, 25}, {0, 5}, {24, 30}, {50, 60}} {
		s.add(x.start, x.end)
	}
	if want := (spans{{0, 5}, {10, 40}, {50, 60}}); !reflect.DeepEqual(s, want) {
		t.Fatalf("add: %v, want %v", s, want)
	}
	if got := s.missing(70); !reflect.DeepEqual(got, spans{{5, 10}, {40, 50}, {60, 70}}) {
		t.Errorf("missing = %v", got)
	}
	if s.reach(12) != 40 || s.reach(45) != 45 || s.size() != 45 {
		t.Errorf("reach/size = %d %d %d", s.reach(12), s.reach(45), s.size())
	}
	s.cut(15, 55)
	if want := (spans{{0, 5}, {10, 15}, {55, 60}}); !reflect.DeepEqual(s, want) {
		t.Errorf("cut: %v, want %v", s, want)
	}
	s.trim(12)
	if want := (spans{{12, 15}, {55, 60}}); !reflect.DeepEqual(s, want) {
		t.Errorf("trim: %v, want %v", s, want)
	}
	ps := planPieces(spans{{0, 10}, {20, 25}}, 4)
	var got []span
	for _, p := range ps {
		got = append(got, span{p.start, p.end})
	}
	if want := []span{{0, 4}, {4, 8}, {8, 10}, {20, 24}, {24, 25}}; !reflect.DeepEqual(got, want) {
		t.Errorf("planPieces = %v, want %v", got, want)
	}
}

// TestPrefixHash writes chunks concurrently and out of order, snapshots the
// state meanwhile, and checks the hash of the whole and of a restored state.
func TestPrefixHash(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %#x", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	data := make([]byte, 3<<20+12345)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "part"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sha, _ := verify.Lookup("sha-256")
	h := verify.NewHasher([]verify.Algorithm{sha})
	ph := newPrefixHash(f, h, 0, nil)
	chunks := planPieces(spans{{0, int64(len(data))}}, 100_000)
	rng.Shuffle(len(chunks), func(i, j int) { chunks[i], chunks[j] = chunks[j], chunks[i] })
	var wg sync.WaitGroup
	work := make(chan *piece)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				b := data[p.start:p.end]
				if _, err := f.WriteAt(b, p.start); err != nil {
					t.Error(err)
				}
				ph.wrote(p.start, b)
			}
		}()
	}
	var wm int64
	var state []byte
	for i, p := range chunks {
		work <- p
		if i == len(chunks)/2 {
			if wm, state, err = ph.snapshot(nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(work)
	wg.Wait()
	n, err := ph.finish()
	if err != nil || n != int64(len(data)) {
		t.Fatalf("finish = %d, %v; want %d", n, err, len(data))
	}
	want := sha256.Sum256(data)
	if got := h.Sums()[0].Value; !bytes.Equal(got, want[:]) {
		t.Fatalf("prefix hash differs from sha-256 of the data")
	}
	// The snapshot restores to the hash of its prefix.
	r := verify.NewHasher([]verify.Algorithm{sha})
	if err := r.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	r.Write(data[wm:])
	if got := r.Sums()[0].Value; !bytes.Equal(got, want[:]) {
		t.Errorf("state saved at %d does not continue to the whole hash", wm)
	}
}

// countingReaderAt counts the bytes read back.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.n.Add(int64(n))
	return n, err
}

// With no algorithm to compute (an origin that sends no digest, with
// --no-cache) the bytes that landed beyond the watermark are not read back
// and no buffer is lent: there is nothing to hash them with. Pieces from
// nginx read back three quarters of a file for nothing.
func TestPrefixHashNothingToHash(t *testing.T) {
	data := genData(3<<20, 1)
	f := &countingReaderAt{r: bytes.NewReader(data)}
	h := verify.NewHasher(nil)
	defer h.Close()
	ph := newPrefixHash(f, h, 0, nil)
	half := int64(len(data) / 2)
	ph.wrote(half, data[half:]) // beyond the watermark
	if b := ph.lend(0); b != nil {
		ph.landLent(0, b, 0, nil)
		t.Errorf("a buffer was lent to hash nothing")
	}
	ph.wrote(0, data[:half])
	if wm, err := ph.finish(); wm != int64(len(data)) || err != nil {
		t.Fatalf("finish = %d, %v; want %d", wm, err, len(data))
	}
	if n := f.n.Load(); n != 0 {
		t.Errorf("%d bytes read back, want 0", n)
	}
}
