package recompress

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
)

// errChanged: a stream probed a moment ago no longer inflates the same.
var errChanged = errors.New("recompress: the file changed while it was expanded")

// Expand writes the expanded form of the size bytes of src to out: each
// zlib stream Go reproduces (see the package comment) as the bytes it
// holds, everything else as it is. Its only errors are src's and out's.
func Expand(src io.ReaderAt, size int64, out io.Writer) (Stats, error) {
	w := bufio.NewWriterSize(out, 64<<10)
	w.Write(magic)
	e := &expander{src: src, size: size, w: w, budget: probeBudget*size + probeSlack}
	if err := e.run(); err != nil {
		return e.st, err
	}
	w.WriteByte(tagEnd)
	return e.st, w.Flush()
}

type expander struct {
	src    io.ReaderAt
	size   int64
	w      *bufio.Writer
	st     Stats
	budget int64 // bytes probing may still read and inflate
	done   int64 // bytes of src written to w

	// reused by every probe
	zr     io.ReadCloser
	br     *bufio.Reader
	bw     *bufio.Writer
	zws    map[int]*zlib.Writer
	first  []byte
	cmpBuf []byte
}

// run scans src for zlib headers and expands each stream found.
func (e *expander) run() error {
	buf := make([]byte, 64<<10+1)
	for pos := int64(0); pos+1 < e.size && e.budget > 0; {
		n, err := e.src.ReadAt(buf, pos)
		if n < 2 {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		next := pos + int64(n) - 1 // the last byte read starts the next chunk
		for i := 0; i < n-1; {
			j := bytes.IndexByte(buf[i:n-1], 0x78)
			if j < 0 {
				break
			}
			i += j
			at := pos + int64(i)
			if lv := levels(buf[i+1]); lv != nil {
				s, err := e.probe(at, lv)
				if err != nil {
					return err
				}
				if s != nil {
					if err := e.emit(s); err != nil {
						return err
					}
					next = e.done
					break
				}
			}
			i++
		}
		pos = next
	}
	return e.raw(e.size)
}

// raw writes the bytes of src from e.done up to end as a raw segment.
func (e *expander) raw(end int64) error {
	n := end - e.done
	if n <= 0 {
		return nil
	}
	var hdr [1 + binary.MaxVarintLen64]byte
	hdr[0] = tagRaw
	k := binary.PutUvarint(hdr[1:], uint64(n))
	e.w.Write(hdr[:1+k])
	if _, err := io.Copy(e.w, io.NewSectionReader(e.src, e.done, n)); err != nil {
		return err
	}
	e.done = end
	return nil
}

// emit writes the bytes before stream s raw, then s inflated.
func (e *expander) emit(s *stream) error {
	if err := e.raw(s.at); err != nil {
		return err
	}
	var hdr [2 + 2*binary.MaxVarintLen64 + 4]byte
	hdr[0], hdr[1] = tagZlib, byte(s.level+2)
	k := 2 + binary.PutUvarint(hdr[2:], uint64(s.raw))
	k += binary.PutUvarint(hdr[k:], uint64(s.packed))
	binary.BigEndian.PutUint32(hdr[k:], s.crc)
	e.w.Write(hdr[:k+4])
	zr, cr, err := e.open(s.at)
	if err == nil && zr == nil {
		err = errChanged
	}
	if err != nil {
		return err
	}
	if _, err := io.CopyN(e.w, zr, s.raw); err != nil {
		return firstErr(cr.err, errChanged)
	}
	e.done = s.at + s.packed
	e.st.Streams++
	e.st.Packed += s.packed
	e.st.Raw += s.raw
	return nil
}
