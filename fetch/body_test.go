package fetch

import (
	"bytes"
	"io"
	"os"
	"testing"
	"testing/iotest"
)

// A body read from a stream is kept whole for the digest pass and every
// attempt: in memory up to spoolInMemory, beyond it in an unlinked file.
func TestReaderBody(t *testing.T) {
	for _, n := range []int{0, 10, spoolInMemory, spoolInMemory + 1, 3*spoolInMemory + 7} {
		data := genData(n, n)
		dir := t.TempDir()
		b, err := ReaderBody(iotest.HalfReader(bytes.NewReader(data)), dir)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if b.Size != int64(n) {
			t.Errorf("%d bytes: Size %d", n, b.Size)
		}
		if spooled := b.close != nil; spooled != (n > spoolInMemory) {
			t.Errorf("%d bytes: spooled %v", n, spooled)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%d bytes: %d files left in the spool directory", n, len(left))
		}
		for i := 0; i < 2; i++ {
			r, err := b.Open()
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%d bytes, read %d: got %d bytes (%v)", n, i, len(got), err)
			}
		}
		if err := b.Close(); err != nil {
			t.Errorf("%d bytes: Close: %v", n, err)
		}
	}
	// A stream that fails is an error, not a short body.
	if _, err := ReaderBody(iotest.ErrReader(io.ErrUnexpectedEOF), t.TempDir()); err == nil {
		t.Error("failing reader: no error")
	}
	big := io.MultiReader(bytes.NewReader(genData(spoolInMemory+10, 1)), iotest.ErrReader(io.ErrUnexpectedEOF))
	if _, err := ReaderBody(big, t.TempDir()); err == nil {
		t.Error("reader failing after the memory part: no error")
	}
}
