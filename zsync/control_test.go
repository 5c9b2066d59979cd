package zsync

import (
	"bytes"
	"strings"
	"testing"
)

// TestHashLengths: the values Debian's zsyncmake 0.6.2 wrote for files of
// these lengths (zero-filled files, checked by hand with zsyncmake; the
// small ones are also checked live by TestZsyncmakeSameBytes).
func TestHashLengths(t *testing.T) {
	cases := []struct {
		length       int64
		bs           int
		seq, rs, sum int
	}{
		{0, 2048, 1, 2, 3}, {5, 2048, 1, 2, 3}, {100, 2048, 1, 2, 4}, {2048, 2048, 1, 2, 4},
		{2049, 2048, 2, 2, 3}, {10000, 2048, 2, 2, 3}, {100000, 2048, 2, 2, 4},
		{5000000, 2048, 2, 2, 4}, {20000000, 2048, 2, 2, 5}, {99999999, 2048, 2, 2, 5},
		{100000000, 4096, 2, 2, 5}, {600000000, 4096, 2, 3, 5}, {1500000000, 4096, 2, 3, 5},
		{5000, 65536, 1, 3, 5},
	}
	for _, c := range cases {
		seq, rs, sum := HashLengths(c.length, c.bs)
		if seq != c.seq || rs != c.rs || sum != c.sum {
			t.Errorf("HashLengths(%d, %d) = %d,%d,%d, want %d,%d,%d", c.length, c.bs, seq, rs, sum, c.seq, c.rs, c.sum)
		}
		if bs := DefaultBlocksize(c.length); c.bs <= 4096 && bs != c.bs {
			t.Errorf("DefaultBlocksize(%d) = %d, want %d", c.length, bs, c.bs)
		}
	}
}

// TestReadHostile: each malformed control file gets a one-line error
// naming the problem.
func TestReadHostile(t *testing.T) {
	good := encode(t, makeControl(t, randomBytes(1, 5000), 2048))
	head, table, _ := bytes.Cut(good, []byte("\n\n"))
	withHeader := func(old, new string) []byte {
		h := strings.Replace(string(head), old, new, 1)
		return append([]byte(h+"\n\n"), table...)
	}
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "blank line within"},
		{"no version line", []byte("Blocksize: 2048\n\n"), `want a first line "zsync: VERSION"`},
		{"blank first", []byte("\n"), "got a blank line"},
		{"no colon", withHeader("Length: 5000", "Length 5000"), `want "Key: value"`},
		{"newer", withHeader("zsync: 0.6.2", "zsync: 0.6.2\nMin-Version: 0.10"), "needs zsync 0.10"},
		{"blocksize not power", withHeader("Blocksize: 2048", "Blocksize: 3000"), "power of two"},
		{"blocksize huge", withHeader("Blocksize: 2048", "Blocksize: 1073741824"), "from 16 to 16777216"},
		{"length negative", withHeader("Length: 5000", "Length: -1"), "Length"},
		{"length huge", withHeader("Length: 5000", "Length: 4611686018427387904"), "blocks, want at most"},
		{"length twice", withHeader("Length: 5000", "Length: 5000\nLength: 5000"), "appears twice"},
		{"hash lengths 2", withHeader("Hash-Lengths: 2,2,3", "Hash-Lengths: 2,2"), "seq_matches,rsum_bytes"},
		{"seq 3", withHeader("Hash-Lengths: 2,2,3", "Hash-Lengths: 3,2,3"), "from 1 to 2"},
		{"rsum 5", withHeader("Hash-Lengths: 2,2,3", "Hash-Lengths: 2,5,3"), "from 1 to 4"},
		{"checksum 17", withHeader("Hash-Lengths: 2,2,3", "Hash-Lengths: 2,2,17"), "from 3 to 16"},
		{"sha1 short", withHeader("SHA-1: ", "SHA-1: 00"), "40 hex digits"},
		{"no sha1", withHeader("SHA-1: ", "X-SHA-1: "), "unknown and not listed in the Safe header"},
		{"no length", withHeader("Length: 5000", "Safe: Lngth\nLngth: 5000"), "no Length header"},
		{"compressed", withHeader("URL: t", "Z-Map2: 3"), "compressed targets"},
		{"mtime", withHeader("Length: 5000", "Length: 5000\nMTime: yesterday"), "MTime"},
		{"truncated table", good[:len(good)-1], "want 3 blocks of 5 bytes, got 2 whole blocks"},
		{"long table", append(append([]byte{}, good...), 0), "got more bytes after them"},
		{"huge header", []byte("zsync: 0.6.2\nX: " + strings.Repeat("a", maxHeaderBytes)), "blank line within"},
	}
	for _, c := range cases {
		_, err := Read(bytes.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Read error = %v, want one line containing %q", c.name, err, c.want)
		}
	}
	if _, err := Read(bytes.NewReader(withHeader("URL: t", "URL: t\nSafe: X-Note\nX-Note: hi"))); err != nil {
		t.Errorf("an unknown header listed in Safe: Read error = %v, want none", err)
	}
}

// TestWriteReadRoundTrip: Read gives back every field WriteTo wrote.
func TestWriteReadRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 2047, 2048, 4097, 1 << 16} {
		c := makeControl(t, randomBytes(uint64(n), n), 0)
		c.URLs = append(c.URLs, "http://127.0.0.1/mirror/t")
		b := encode(t, c)
		got, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("length %d: %v", n, err)
		}
		if again := encode(t, got); !bytes.Equal(again, b) {
			t.Errorf("length %d: control file changed through Read and WriteTo at byte %d", n, firstDiff(again, b))
		}
		if got.Blocks() != len(got.Rsums) || len(got.Checksums) != got.Blocks()*got.ChecksumBytes {
			t.Errorf("length %d: %d blocks, %d rsums, %d checksum bytes", n, got.Blocks(), len(got.Rsums), len(got.Checksums))
		}
	}
}

// A Length whose block count exceeds an int32 is refused, counted in
// int64: on a 32-bit system 2^36+16 bytes of 16-byte blocks (2^32+1) used
// to wrap to 1 block, pass the MaxBlocks check, and make a 64 GiB file.
func TestLengthBlocksDoNotWrap(t *testing.T) {
	in := "zsync: 0.6.2\nBlocksize: 16\nLength: 68719476752\nHash-Lengths: 1,2,4\nSHA-1: " +
		strings.Repeat("0", 40) + "\n\n" + strings.Repeat("\x00", 6)
	if c, err := Read(strings.NewReader(in)); err == nil {
		t.Fatalf("accepted Length %d as %d blocks", c.Length, c.Blocks())
	}
	if n := blockCount(1<<36+16, 16); n != MaxBlocks+1 {
		t.Errorf("blockCount(2^36+16, 16) = %d, want it capped at MaxBlocks+1 = %d", n, MaxBlocks+1)
	}
	if n := blockCount(1<<20, 16); n != 1<<16 {
		t.Errorf("blockCount(2^20, 16) = %d, want %d", n, 1<<16)
	}
}
