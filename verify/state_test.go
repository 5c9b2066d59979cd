package verify

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// Hash half, save, restore into a new Hasher, hash the rest: the sums equal
// those of one pass. Big writes run the concurrent path on both sides.
func TestHasherStateResume(t *testing.T) {
	data := randomBytes(7, 3<<20+5)
	sets := map[string][]Algorithm{"all eight": Algorithms}
	for _, a := range Algorithms {
		sets[a.Key] = []Algorithm{a}
	}
	for name, algs := range sets {
		t.Run(name, func(t *testing.T) {
			for _, cut := range []int{0, 1, pipeFrom, len(data) / 2, len(data)} {
				first := NewHasher(algs)
				first.Write(data[:cut])
				state, err := first.MarshalBinary()
				if err != nil {
					t.Fatalf("MarshalBinary: %v", err)
				}
				// The first Hasher goes on undisturbed, workers and all.
				first.Write(data[cut:])

				second := NewHasher(algs)
				if err := second.UnmarshalBinary(state); err != nil {
					t.Fatalf("UnmarshalBinary: %v", err)
				}
				if second.Written() != int64(cut) {
					t.Errorf("Written after restore = %d, want %d", second.Written(), cut)
				}
				second.Write(data[cut:])

				want := separateSums(algs, data)
				if got := second.Sums(); !reflect.DeepEqual(got, want) {
					t.Errorf("cut %d: resumed Sums = %v, want %v", cut, got, want)
				}
				if got := first.Sums(); !reflect.DeepEqual(got, want) {
					t.Errorf("cut %d: Sums of the saved Hasher = %v, want %v", cut, got, want)
				}
			}
		})
	}
}

// A state restores into a Hasher that has already hashed something else, and
// while its workers are running.
func TestHasherStateOverwrites(t *testing.T) {
	algs := []Algorithm{mustLookup(t, "sha-256"), mustLookup(t, "sha-512"), mustLookup(t, "unixcksum")}
	data := randomBytes(8, 1<<20)
	a := NewHasher(algs)
	defer a.Close()
	a.Write(data[:1<<19])
	state, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b := NewHasher(algs)
	defer b.Close()
	b.Write(randomBytes(9, 1<<18)) // starts the workers
	if err := b.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	b.Write(data[1<<19:])
	if got, want := b.Sums(), separateSums(algs, data); !reflect.DeepEqual(got, want) {
		t.Errorf("Sums = %v, want %v", got, want)
	}
}

func TestHasherStateErrors(t *testing.T) {
	sha256, sha512, md5 := mustLookup(t, "sha-256"), mustLookup(t, "sha-512"), mustLookup(t, "md5")
	src := NewHasher([]Algorithm{sha256, sha512})
	src.Write([]byte("some bytes"))
	good, err := src.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		algs []Algorithm
		data []byte
	}{
		{"empty", []Algorithm{sha256, sha512}, nil},
		{"not a state", []Algorithm{sha256, sha512}, []byte("hello, world, hello")},
		{"other version", []Algorithm{sha256, sha512}, append(append([]byte(stateMagic), 2), good[len(stateMagic)+1:]...)},
		{"trailing bytes", []Algorithm{sha256, sha512}, append(bytes.Clone(good), 0)},
		{"fewer algorithms", []Algorithm{sha256}, good},
		{"more algorithms", []Algorithm{sha256, sha512, md5}, good},
		{"other order", []Algorithm{sha512, sha256}, good},
		{"other algorithm", []Algorithm{sha256, md5}, good},
		{"corrupt inner state", []Algorithm{sha256, sha512}, corruptLast(good)},
		{"key over the limit", []Algorithm{sha256, sha512}, append([]byte(stateMagic), stateVersion, 0, 2, 0xff, 0x7f)},
		{"count out of range", []Algorithm{sha256, sha512}, append([]byte(stateMagic), stateVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 2)},
	}
	for n := range len(good) {
		tests = append(tests, struct {
			name string
			algs []Algorithm
			data []byte
		}{"truncated", []Algorithm{sha256, sha512}, good[:n]})
	}
	for _, tt := range tests {
		h := NewHasher(tt.algs)
		h.Write([]byte("before"))
		before, _ := h.MarshalBinary()
		err := h.UnmarshalBinary(tt.data)
		if !errors.Is(err, ErrHasherState) {
			t.Errorf("%s (%d bytes): UnmarshalBinary = %v, want ErrHasherState", tt.name, len(tt.data), err)
		}
		if after, _ := h.MarshalBinary(); !bytes.Equal(before, after) {
			t.Errorf("%s: failed UnmarshalBinary changed the Hasher", tt.name)
		}
		h.Close()
	}
}

// corruptLast damages the magic of the last algorithm's saved state.
func corruptLast(state []byte) []byte {
	b := bytes.Clone(state)
	i := bytes.LastIndex(b, []byte("sha\x07")) // sha512's state magic
	if i < 0 {
		panic("sha512 state magic not found")
	}
	b[i] ^= 0xff
	return b
}

func TestUnixStateErrors(t *testing.T) {
	for _, key := range []string{"unixsum", "unixcksum"} {
		h := mustLookup(t, key).New()
		h.Write([]byte("abc"))
		st, err := h.(interface{ MarshalBinary() ([]byte, error) }).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		u := h.(interface{ UnmarshalBinary([]byte) error })
		for _, bad := range [][]byte{nil, st[:len(st)-1], append(bytes.Clone(st), 0), append([]byte("x"), st[1:]...)} {
			if err := u.UnmarshalBinary(bad); err == nil {
				t.Errorf("%s: UnmarshalBinary(%q) succeeded", key, bad)
			}
		}
	}
}
