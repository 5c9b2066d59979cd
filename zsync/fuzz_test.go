package zsync

import (
	"bytes"
	"testing"
)

// FuzzReadControl: Read never panics, and what it accepts survives WriteTo
// and Read unchanged; the matcher takes what Read accepts, hash lengths
// zsyncmake never writes included (pairs over one block, one rsum byte),
// without a panic, and asks only for ranges of the target. The seed corpus
// is in testdata/fuzz/FuzzReadControl.
func FuzzReadControl(f *testing.F) {
	f.Add(encode(nil, mustMake(randomBytes(7, 5000), 2048)))
	f.Add(encode(nil, mustMake(nil, 2048)))
	// A target of zeros, its last block short: the zeros matchAny feeds
	// pass its checks, so blocks are written, not only refused.
	f.Add(encode(nil, mustMake(make([]byte, 1000), 16)))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := Read(bytes.NewReader(in))
		if err != nil {
			return
		}
		if c.Blocks() != len(c.Rsums) || len(c.Checksums) != c.Blocks()*c.ChecksumBytes {
			t.Fatalf("accepted a table of %d rsums and %d checksum bytes for %d blocks", len(c.Rsums), len(c.Checksums), c.Blocks())
		}
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("Read of our own rewrite: %v", err)
		}
		if c.Length != again.Length || c.Blocksize != again.Blocksize || !bytes.Equal(c.Checksums, again.Checksums) {
			t.Fatal("rewrite changed the control file")
		}
		if c.Length <= 1<<16 {
			matchAny(t, c, in)
		}
	})
}

// matchAny seeds a matcher of c with seed, then feeds every missing range
// zeros: whatever fails its checks, nothing panics, and what is written
// (checked blocks, of seed or zeros) stays within the target's Length.
func matchAny(t *testing.T, c *Control, seed []byte) {
	out := &memFile{}
	m := NewMatcher(c, out)
	if err := m.Seed(bytes.NewReader(seed)); err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Missing() {
		if r.Start < 0 || r.End > c.Length || r.Start >= r.End {
			t.Fatalf("missing range %d-%d of a %d-byte target", r.Start, r.End, c.Length)
		}
		m.WriteFetched(r.Start, bytes.NewReader(make([]byte, r.Len())))
	}
	if err := m.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := int64(len(out.b)); n > c.Length {
		t.Fatalf("wrote %d bytes of a %d-byte target", n, c.Length)
	}
}

func mustMake(data []byte, bs int) *Control {
	c, err := Make(bytes.NewReader(data), int64(len(data)), MakeOptions{Blocksize: bs, Filename: "f", URL: "f"})
	if err != nil {
		panic(err)
	}
	return c
}

// FuzzMatch: whatever the target and the seed, the matcher plus the
// missing ranges rebuild the target exactly, and never fetch more than the
// target. Small block sizes reach the edge cases (short last blocks, seeds
// shorter than a block, pairs at the end).
func FuzzMatch(f *testing.F) {
	f.Add([]byte("hello, world: the same bytes twice"), []byte("the same bytes twice, hello"), uint8(0))
	f.Add(bytes.Repeat([]byte("ab"), 100), []byte("ba"), uint8(1))
	f.Add([]byte{}, []byte("x"), uint8(2))
	f.Fuzz(func(t *testing.T, target, seed []byte, bsExp uint8) {
		if len(target) > 1<<16 || len(seed) > 1<<16 {
			return
		}
		bs := 16 << (bsExp % 3)
		c, err := Make(bytes.NewReader(target), int64(len(target)), MakeOptions{Blocksize: bs})
		if err != nil {
			t.Fatal(err)
		}
		out := &memFile{}
		m := NewMatcher(c, out)
		if err := m.Seed(bytes.NewReader(seed)); err != nil {
			t.Fatal(err)
		}
		for _, r := range Coalesce(m.Missing(), int64(bs)) {
			if _, err := m.WriteFetched(r.Start, bytes.NewReader(target[r.Start:r.End])); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Finish(out); err != nil {
			t.Fatal(err)
		}
		if m.Fetched > int64(len(target)) || !bytes.Equal(out.b[:len(target)], target) {
			t.Fatalf("fetched %d of %d bytes; rebuilt file equal: %v", m.Fetched, len(target), bytes.Equal(out.b[:len(target)], target))
		}
	})
}
