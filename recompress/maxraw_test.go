package recompress

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"testing"
)

// storedFile is, as a ReaderAt, the zlib stream Go's writer at level 0
// writes for n zero bytes: 78 01, stored blocks of 65535 bytes, an empty
// final stored block, the Adler-32. Computed, not held in memory.
type storedFile struct {
	n    int64
	hdrs map[int64][]byte // offset -> non-zero bytes
	size int64
}

func newStoredFile(n int64) *storedFile {
	s := &storedFile{n: n, hdrs: map[int64][]byte{0: {0x78, 0x01}}}
	pos := int64(2)
	for left := n; left > 0; {
		k := min(left, 65535)
		h := []byte{0, byte(k), byte(k >> 8), ^byte(k), ^byte(k >> 8)}
		s.hdrs[pos] = h
		pos += 5 + k
		left -= k
	}
	s.hdrs[pos] = []byte{1, 0, 0, 0xff, 0xff}
	pos += 5
	var ad [4]byte
	binary.BigEndian.PutUint32(ad[:], uint32(n%65521)<<16|1) // adler32 of n zeros
	s.hdrs[pos] = ad[:]
	s.size = pos + 4
	return s
}

func (s *storedFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.size {
		return 0, io.EOF
	}
	n := len(p)
	var err error
	if int64(n) > s.size-off {
		n, err = int(s.size-off), io.EOF
	}
	clear(p[:n])
	// headers are at most 5 bytes; find those overlapping [off, off+n)
	blk := int64(65540)
	first := (off-2)/blk - 1
	for i := max(first, 0); ; i++ {
		at := 2 + i*blk
		if at > off+int64(n) {
			break
		}
		for _, a := range []int64{at} {
			if h, ok := s.hdrs[a]; ok {
				for j, b := range h {
					if q := a + int64(j) - off; q >= 0 && q < int64(n) {
						p[q] = b
					}
				}
			}
		}
	}
	for _, a := range []int64{0, s.size - 9, s.size - 4} {
		if h, ok := s.hdrs[a]; ok {
			for j, b := range h {
				if q := a + int64(j) - off; q >= 0 && q < int64(n) {
					p[q] = b
				}
			}
		}
	}
	return n, err
}

// The generator writes what Go's zlib writer writes at level 0.
func TestStoredFileIsGos(t *testing.T) {
	for _, n := range []int64{1000, 65535, 65536, 300000} {
		var z bytes.Buffer
		w, _ := zlib.NewWriterLevel(&z, 0)
		w.Write(make([]byte, n))
		w.Close()
		s := newStoredFile(n)
		got := make([]byte, s.size)
		s.ReadAt(got, 0)
		if !bytes.Equal(got, z.Bytes()) {
			t.Fatalf("n=%d: generator differs from zlib level 0 (%d vs %d bytes)", n, len(got), z.Len())
		}
	}
}

// A stream Go reproduces at level 0 holding exactly MaxRaw bytes is over
// MaxRaw packed: Expand emitted it (it bounded raw, not packed) and
// Contract refused it (packed > MaxRaw): Contract(Expand(f)) != f.
func TestExpandPackedOverMaxRaw(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 64 MiB")
	}
	f := newStoredFile(MaxRaw)
	pr, pw := io.Pipe()
	go func() {
		_, err := Expand(f, f.size, pw)
		pw.CloseWithError(err)
	}()
	err := Contract(pr, io.Discard)
	pr.CloseWithError(io.ErrClosedPipe)
	if err != nil {
		t.Fatalf("file of %d bytes (a Go level-0 stream of %d bytes): Contract(Expand(f)): %v", f.size, int64(MaxRaw), err)
	}
}
