package patch

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// gdiff (W3C NOTE-gdiff-19970901): magic D1 FF D1 FF, version 4, then
// commands: 0 EOF; 1–246 DATA of that many bytes; 247 DATA ushort length;
// 248 DATA int length; 249–255 COPY position, length as ushort/ubyte,
// ushort/ushort, ushort/int, int/ubyte, int/ushort, int/int, long/int.
// Integers are big-endian and signed; positions are offsets in the base.
var gdiffMagic = []byte{0xd1, 0xff, 0xd1, 0xff, 0x04}

const (
	gdiffEOF      = 0
	gdiffDataMax  = 246
	gdiffDataU16  = 247
	gdiffDataI32  = 248
	gdiffCopyBase = 249
)

// gdiffCopyFields gives the widths of position and length of commands 249–255.
var gdiffCopyFields = [7][2]int{{2, 1}, {2, 2}, {2, 4}, {4, 1}, {4, 2}, {4, 4}, {8, 4}}

// DecodeGDIFF applies the gdiff delta read from delta to the base and
// writes the result to out. Malformed deltas give errors wrapping ErrCorrupt.
func DecodeGDIFF(base io.ReaderAt, baseSize int64, delta io.Reader, out io.Writer, opts ...Option) error {
	cfg := newConfig(opts)
	in := bufio.NewReaderSize(delta, 64<<10)
	magic := make([]byte, len(gdiffMagic))
	if _, err := io.ReadFull(in, magic); err != nil || string(magic) != string(gdiffMagic) {
		return corruptf("gdiff: want magic d1ffd1ff04, got %x", magic)
	}
	src := newSource(base, baseSize, cfg.cacheSize)
	bw := bufio.NewWriterSize(out, 256<<10)
	var written int64
	for {
		cmd, err := in.ReadByte()
		if err != nil {
			return corruptf("gdiff: missing EOF command after %d bytes of output", written)
		}
		if cmd == gdiffEOF {
			if _, err := in.ReadByte(); !errors.Is(err, io.EOF) {
				return corruptf("gdiff: data after the EOF command")
			}
			return bw.Flush()
		}
		n, err := gdiffCommand(cmd, in, src, bw, written, cfg.maxOutput)
		if err != nil {
			return fmt.Errorf("gdiff: command %d at output offset %d: %w", cmd, written, err)
		}
		written += n
	}
}

// gdiffCommand executes one DATA or COPY command after written bytes of
// output; limit bounds the output (0: no limit).
func gdiffCommand(cmd byte, in *bufio.Reader, src *source, w io.Writer, written, limit int64) (int64, error) {
	if cmd >= gdiffCopyBase {
		f := gdiffCopyFields[cmd-gdiffCopyBase]
		pos, err := readBE(in, f[0])
		if err != nil {
			return 0, err
		}
		n, err := readBE(in, f[1])
		if err != nil {
			return 0, err
		}
		if pos > src.size || n > src.size-pos {
			return 0, corruptf("copy [%d, +%d) beyond the %d-byte base", pos, n, src.size)
		}
		if err := checkLimit(written, n, limit); err != nil {
			return 0, err
		}
		return n, copyBase(w, src, pos, n)
	}
	n := int64(cmd)
	var err error
	switch cmd {
	case gdiffDataU16:
		n, err = readBE(in, 2)
	case gdiffDataI32:
		n, err = readBE(in, 4)
	}
	if err != nil {
		return 0, err
	}
	if err := checkLimit(written, n, limit); err != nil {
		return 0, err
	}
	if k, err := io.CopyN(w, in, n); err != nil {
		return k, corruptf("data: want %d bytes, got %d: %v", n, k, err)
	}
	return n, nil
}

// checkLimit fails if writing n more bytes after written exceeds limit.
func checkLimit(written, n, limit int64) error {
	if limit > 0 && n > limit-written {
		return limitf("output over %d bytes", limit)
	}
	return nil
}

// readBE reads a big-endian signed integer of width bytes; negative is corrupt.
func readBE(r io.Reader, width int) (int64, error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[8-width:]); err != nil {
		return 0, corruptf("truncated %d-byte integer", width)
	}
	v := int64(binary.BigEndian.Uint64(b[:]))
	if width == 4 {
		v = int64(int32(uint32(v)))
	}
	if v < 0 {
		return 0, corruptf("negative integer %d", v)
	}
	return v, nil
}

// copyBase writes n bytes of the base from off.
func copyBase(w io.Writer, src *source, off, n int64) error {
	for n > 0 {
		p, err := src.span(off, int(min(n, 1<<30)))
		if err != nil {
			return err
		}
		if _, err := w.Write(p); err != nil {
			return err
		}
		off += int64(len(p))
		n -= int64(len(p))
	}
	return nil
}
