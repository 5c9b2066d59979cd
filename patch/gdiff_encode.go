package patch

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math"
)

// EncodeGDIFF writes a gdiff delta from the base to the target read from
// target, using the vcdiff encoder's matcher (copies from the base only:
// gdiff cannot copy from the target) one window at a time.
func EncodeGDIFF(base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer, opts ...Option) error {
	cfg := newConfig(opts)
	m, err := newMatcher(base, baseSize, cfg, false)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	if _, err := bw.Write(gdiffMagic); err != nil {
		return err
	}
	buf := make([]byte, cfg.windowSize)
	for {
		n, rerr := io.ReadFull(target, buf)
		if rerr != nil && !errors.Is(rerr, io.EOF) && !errors.Is(rerr, io.ErrUnexpectedEOF) {
			return rerr
		}
		pos := 0
		for _, o := range m.window(buf[:n]) {
			if o.kind == instCopy {
				gdiffCopy(bw, o.addr, int64(o.n))
			} else {
				gdiffData(bw, buf[pos:pos+o.n])
			}
			pos += o.n
		}
		if rerr != nil {
			break
		}
	}
	if err := bw.WriteByte(gdiffEOF); err != nil {
		return err
	}
	return bw.Flush()
}

// gdiffData writes DATA commands for p; write errors surface at Flush.
func gdiffData(w *bufio.Writer, p []byte) {
	for len(p) > 0 {
		n := min(len(p), math.MaxInt32)
		switch {
		case n <= gdiffDataMax:
			w.WriteByte(byte(n))
		case n <= math.MaxUint16:
			w.WriteByte(gdiffDataU16)
			w.Write(binary.BigEndian.AppendUint16(nil, uint16(n)))
		default:
			w.WriteByte(gdiffDataI32)
			w.Write(binary.BigEndian.AppendUint32(nil, uint32(n)))
		}
		w.Write(p[:n])
		p = p[n:]
	}
}

// gdiffCopy writes COPY commands for base [pos, pos+n) with the narrowest
// fields that hold them.
func gdiffCopy(w *bufio.Writer, pos, n int64) {
	for n > 0 {
		k := min(n, math.MaxInt32)
		pw := 8
		switch {
		case pos <= math.MaxUint16:
			pw = 2
		case pos <= math.MaxInt32:
			pw = 4
		}
		lw := 4
		switch {
		case pw != 8 && k <= math.MaxUint8:
			lw = 1
		case pw != 8 && k <= math.MaxUint16:
			lw = 2
		}
		for i, f := range gdiffCopyFields {
			if f[0] == pw && f[1] == lw {
				w.WriteByte(byte(gdiffCopyBase + i))
			}
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(pos))
		w.Write(b[8-pw:])
		binary.BigEndian.PutUint64(b[:], uint64(k))
		w.Write(b[8-lw:])
		pos, n = pos+k, n-k
	}
}
