package zsync

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// TestMD4Vectors: the test suite of RFC 1320, appendix A.5, written whole
// and in uneven pieces.
func TestMD4Vectors(t *testing.T) {
	vectors := []struct{ in, want string }{
		{"", "31d6cfe0d16ae931b73c59d7e0c089c0"},
		{"a", "bde52cb31de33e46245e05fbdbd6fb24"},
		{"abc", "a448017aaf21d8525fc10ae87aa6729d"},
		{"message digest", "d9130a8164549fe818874806e1c7014b"},
		{"abcdefghijklmnopqrstuvwxyz", "d79e1c308aa5bbcdeea8ed63df412da9"},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "043f8582f241db351ce627e153e7f0e4"},
		{strings.Repeat("1234567890", 8), "e33b4ddc9c38f2199c3e7b164fcc0536"},
	}
	for _, v := range vectors {
		for _, step := range []int{1, 3, 64, 1000} {
			h := newMD4()
			for i := 0; i < len(v.in); i += step {
				h.Write([]byte(v.in[i:min(i+step, len(v.in))]))
			}
			got := hex.EncodeToString(h.Sum(nil))
			if got != v.want {
				t.Errorf("MD4(%q) in pieces of %d = %s, want %s", v.in, step, got, v.want)
			}
			if again := hex.EncodeToString(h.Sum(nil)); again != got {
				t.Errorf("MD4(%q): second Sum = %s, want %s (Sum must not change the state)", v.in, again, got)
			}
		}
	}
}

func BenchmarkMD4Block2K(b *testing.B) {
	p := make([]byte, 2048)
	h := newMD4()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		h.Reset()
		h.Write(p)
		h.Sum(nil)
	}
}

func BenchmarkRsum2K(b *testing.B) {
	p := make([]byte, 2048)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		rsum(p)
	}
}

// TestMD4Two: two MD4s computed at once equal each computed alone, for
// every tail length around the padding's one-block and two-block cases.
func TestMD4Two(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 200, 2048, 4096 + 56} {
		p, q := randomBytes(uint64(n), n), randomBytes(uint64(n)+1000, n)
		var sp, sq [md4Size]byte
		md4Two(p, q, &sp, &sq)
		for _, c := range []struct {
			in  []byte
			got []byte
		}{{p, sp[:]}, {q, sq[:]}} {
			h := newMD4()
			h.Write(c.in)
			if want := h.Sum(nil); !bytes.Equal(c.got, want) {
				t.Errorf("md4Two of %d bytes: %x, want %x", n, c.got, want)
			}
		}
	}
}

func BenchmarkMD4Two2K(b *testing.B) {
	p := make([]byte, 4096)
	var s0, s1 [md4Size]byte
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		md4Two(p[:2048], p[2048:], &s0, &s1)
	}
}

// TestMD4Eight: eight MD4s at once equal each computed alone, and the
// lanes' block function equals the one-lane one, for block sizes from 64
// bytes to 16 KiB.
func TestMD4Eight(t *testing.T) {
	for _, bs := range []int{64, 128, 2048, 4096, 16384} {
		p := randomBytes(uint64(bs), 8*bs+100)
		var out [8][md4Size]byte
		if !md4Eight(p, bs, &out) {
			if haveMD4x8 {
				t.Fatalf("block size %d: md4Eight declined with eight lanes available", bs)
			}
			continue
		}
		for k := range 8 {
			h := newMD4()
			h.Write(p[k*bs : (k+1)*bs])
			if want := h.Sum(nil); !bytes.Equal(out[k][:], want) {
				t.Errorf("block size %d, block %d: md4Eight %x, want %x", bs, k, out[k], want)
			}
		}
	}
	p := randomBytes(99, 8*4096)
	var got, want [4][8]uint32
	for l := range 8 {
		got[0][l], got[1][l], got[2][l], got[3][l] = uint32(l), uint32(l*3), uint32(l*5), uint32(l*7)
	}
	want = got
	md4x8(&got, p, 4096, 4096/64)
	md4x8Lanes(&want, p, 4096, 4096/64)
	if got != want {
		t.Errorf("md4x8 state %x, want %x as one lane after another", got, want)
	}
}

func BenchmarkMD4Eight4K(b *testing.B) {
	p := make([]byte, 8*4096)
	var out [8][md4Size]byte
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		md4Eight(p, 4096, &out)
	}
}
