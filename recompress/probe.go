package recompress

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"hash"
	"hash/crc32"
	"io"
)

// A stream is a zlib stream of src that Go reproduces.
type stream struct {
	at, packed, raw int64
	level           int
	crc             uint32
}

// probe returns the stream at offset at if one of the levels lv
// reproduces it, else nil. Errors are src's.
func (e *expander) probe(at int64, lv []int) (*stream, error) {
	for _, level := range lv {
		if e.budget <= 0 {
			return nil, nil
		}
		s, inflates, err := e.try(at, level)
		if err != nil || s != nil || !inflates {
			return s, err
		}
	}
	return nil, nil
}

var (
	errMismatch = errors.New("recompressed bytes differ")
	errTooLarge = errors.New("inflates too far")
)

// try inflates the stream at offset at while compressing what it inflates
// at level, comparing the result with src. inflates reports whether the
// bytes read so far were a zlib stream (so another level may be tried).
// Most candidates are not streams and fail in their first bytes, before
// a compressor is taken.
func (e *expander) try(at int64, level int) (s *stream, inflates bool, err error) {
	zr, cr, err := e.open(at)
	if err != nil || zr == nil {
		return nil, false, err
	}
	cmp := &comparer{src: e.src, at: at, end: e.size, crc: crc32.NewIEEE(), buf: e.cmpBuf}
	lim := &limited{r: zr, cr: cr, cmp: cmp, e: e}
	first, rerr := io.ReadFull(lim, e.first)
	if rerr != nil && rerr != io.ErrUnexpectedEOF {
		return nil, false, cr.err
	}
	e.bw.Reset(cmp)
	zw := e.writer(level)
	zw.Write(e.first[:first])
	raw, rerr := io.Copy(zw, lim)
	raw += int64(first)
	zw.Close()
	e.bw.Flush()
	e.cmpBuf = cmp.buf
	switch {
	case cr.err != nil:
		return nil, false, cr.err
	case cmp.err != nil:
		return nil, false, cmp.err
	case errors.Is(rerr, errMismatch):
		return nil, true, nil
	case rerr != nil:
		return nil, false, nil // not a stream, or one not worth expanding
	case cmp.bad || cmp.n != cr.n:
		return nil, true, nil
	case cr.n < MinPacked || cr.n > MaxRaw || raw > MaxRatio*cr.n:
		return nil, false, nil
	}
	return &stream{at: at, packed: cr.n, raw: raw, level: level, crc: cmp.crc.Sum32()}, true, nil
}

// writer returns the expander's zlib writer at level, reset to e.bw.
func (e *expander) writer(level int) *zlib.Writer {
	if zw := e.zws[level]; zw != nil {
		zw.Reset(e.bw)
		return zw
	}
	zw, _ := zlib.NewWriterLevel(e.bw, level)
	if e.zws == nil {
		e.zws = map[int]*zlib.Writer{}
	}
	e.zws[level] = zw
	return zw
}

// open returns a zlib reader of src from offset at, and the counter of the
// compressed bytes it takes; a nil reader if no zlib header is there. The
// reader and its buffer are the expander's, reused.
func (e *expander) open(at int64) (io.Reader, *counter, error) {
	cr := &counter{sr: &charged{r: io.NewSectionReader(e.src, at, e.size-at), e: e}}
	if e.br == nil {
		e.br = bufio.NewReaderSize(cr.sr, 16<<10)
		e.bw = bufio.NewWriterSize(nil, 64<<10)
		e.first = make([]byte, 4<<10)
	}
	e.br.Reset(cr.sr)
	cr.r = e.br
	var err error
	if e.zr == nil {
		e.zr, err = zlib.NewReader(cr)
	} else {
		err = e.zr.(zlib.Resetter).Reset(cr, nil)
	}
	if err != nil {
		e.zr = nil
		return nil, cr, cr.err
	}
	return e.zr, cr, nil
}

// counter is the byte reader the inflater reads: it counts the bytes
// taken (flate reads a ByteReader no further than the stream's end) and
// keeps src's first error.
type counter struct {
	sr  io.Reader
	r   *bufio.Reader
	n   int64
	err error
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, c.note(err)
}

func (c *counter) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, c.note(err)
}

// note keeps an error that is src's (not the end of it).
func (c *counter) note(err error) error {
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return err
}

// charged reads src for a probe, charging the bytes read to the budget:
// a file of many candidate headers costs a buffer's read each, which
// counts as much as inflating.
type charged struct {
	r io.Reader
	e *expander
}

func (c *charged) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.e.budget -= int64(n)
	return n, err
}

// limited reads the inflater, stopping at a mismatch, past MaxRaw or
// MaxRatio (with slack for a block in flight), or when the budget is spent.
type limited struct {
	r   io.Reader
	cr  *counter
	cmp *comparer
	e   *expander
	n   int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.cmp.bad {
		return 0, errMismatch
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	l.e.budget -= int64(n)
	l.e.st.Probed += int64(n)
	if l.n > MaxRaw || l.n > MaxRatio*l.cr.n+1<<20 || l.e.budget < 0 {
		return n, errTooLarge
	}
	return n, err
}

// comparer takes a recompressed stream and compares it with src from at.
type comparer struct {
	src     io.ReaderAt
	at, end int64
	n       int64 // bytes compared equal
	crc     hash.Hash32
	bad     bool
	err     error // src's
	buf     []byte
}

func (c *comparer) Write(p []byte) (int, error) {
	if c.bad {
		return len(p), nil
	}
	if int64(len(p)) > c.end-c.at-c.n {
		c.bad = true
		return len(p), nil
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	b := c.buf[:len(p)]
	if _, err := c.src.ReadAt(b, c.at+c.n); err != nil && err != io.EOF {
		c.err, c.bad = err, true
		return len(p), nil
	}
	if !bytes.Equal(b, p) {
		c.bad = true
		return len(p), nil
	}
	c.crc.Write(p)
	c.n += int64(len(p))
	return len(p), nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
