package recompress

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// Contract reads an expanded form from in and writes the file it was
// expanded from to out. Every stream is recompressed and checked against
// the size and CRC-32 the form names; a stream that Go's zlib writer here
// does not reproduce (another Go release's) is an error wrapping
// ErrCorrupt. Bytes of a segment are written before its check: a caller
// that must not release bad bytes verifies what out received.
func Contract(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != string(magic) {
		return corruptf("does not start with %q", magic)
	}
	var zws [12]*zlib.Writer // by level+2, reused
	for seg := 0; ; seg++ {
		tag, err := r.ReadByte()
		if err != nil {
			return corruptf("segment %d: %v", seg, unexpected(err))
		}
		switch tag {
		case tagEnd:
			if _, err := r.ReadByte(); err != io.EOF {
				return corruptf("bytes after the end")
			}
			return nil
		case tagRaw:
			n, err := binary.ReadUvarint(r)
			if err != nil || n > 1<<62 {
				return corruptf("segment %d: raw length: %v", seg, unexpected(err))
			}
			if _, err := io.CopyN(out, r, int64(n)); err != nil {
				return wrapCopy(seg, err)
			}
		case tagZlib:
			if err := contractStream(r, out, seg, &zws); err != nil {
				return err
			}
		default:
			return corruptf("segment %d: unknown tag %#x", seg, tag)
		}
	}
}

// contractStream reads a zlib segment's header and raw bytes from r and
// writes the stream.
func contractStream(r *bufio.Reader, out io.Writer, seg int, zws *[12]*zlib.Writer) error {
	lv, err := r.ReadByte()
	if err != nil {
		return corruptf("segment %d: %v", seg, unexpected(err))
	}
	level := int(lv) - 2
	if level < -2 || level > 6 {
		return corruptf("segment %d: zlib level %d", seg, level)
	}
	raw, err1 := binary.ReadUvarint(r)
	packed, err2 := binary.ReadUvarint(r)
	var sum [4]byte
	_, err3 := io.ReadFull(r, sum[:])
	if err := errors.Join(err1, err2, err3); err != nil {
		return corruptf("segment %d: header: %v", seg, unexpected(err))
	}
	if packed < MinPacked || packed > MaxRaw || raw > MaxRaw || raw > MaxRatio*packed {
		return corruptf("segment %d: a stream of %d bytes inflating to %d is not one Expand writes", seg, packed, raw)
	}
	cw := &checked{w: out, h: crc32.NewIEEE(), max: int64(packed)}
	zw := zws[level+2]
	if zw == nil {
		zw, _ = zlib.NewWriterLevel(cw, level)
		zws[level+2] = zw
	} else {
		zw.Reset(cw)
	}
	if _, err := io.CopyN(zw, r, int64(raw)); err != nil {
		return wrapCopy(seg, err)
	}
	if err := zw.Close(); err != nil {
		return err
	}
	want := binary.BigEndian.Uint32(sum[:])
	if got := cw.h.Sum32(); cw.n != int64(packed) || got != want {
		return corruptf("segment %d: recompressed at level %d to %d bytes with CRC-32 %08x, want %d bytes with %08x", seg, level, cw.n, got, packed, want)
	}
	return nil
}

// wrapCopy names a copy's failure: a short input is corrupt, a write
// error is the writer's.
func wrapCopy(seg int, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return corruptf("segment %d: truncated", seg)
	}
	return err
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// checked writes through to w, counting and hashing, and fails a write
// past max bytes.
type checked struct {
	w   io.Writer
	max int64
	h   interface {
		io.Writer
		Sum32() uint32
	}
	n int64
}

func (c *checked) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.max {
		return 0, corruptf("recompressed past the %d bytes the segment names", c.max)
	}
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}
