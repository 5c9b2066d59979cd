package zsync

import (
	"bytes"
	"testing"
)

// FuzzReadControl: Read never panics, and what it accepts survives WriteTo
// and Read unchanged. The seed corpus is in testdata/fuzz/FuzzReadControl.
func FuzzReadControl(f *testing.F) {
	f.Add(encode(nil, mustMake(randomBytes(7, 5000), 2048)))
	f.Add(encode(nil, mustMake(nil, 2048)))
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
	})
}

func mustMake(data []byte, bs int) *Control {
	c, err := Make(bytes.NewReader(data), int64(len(data)), MakeOptions{Blocksize: bs, Filename: "f", URL: "f"})
	if err != nil {
		panic(err)
	}
	return c
}
