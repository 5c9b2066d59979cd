package patch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// Header and window indicator bits (RFC 3284 §4.1, §4.2; xdelta3).
const (
	vcdDecompress = 0x01 // Hdr_Indicator: secondary compressor ID follows
	vcdCodeTable  = 0x02 // Hdr_Indicator: application-defined code table follows
	vcdAppHeader  = 0x04 // Hdr_Indicator: xdelta3 application header follows
	vcdSource     = 0x01 // Win_Indicator: segment of the base
	vcdTarget     = 0x02 // Win_Indicator: segment of the earlier target
	vcdAdler32    = 0x04 // Win_Indicator: xdelta3 Adler-32 of the target window
)

var vcdiffMagic = []byte{0xd6, 0xc3, 0xc4}

// vdecoder decodes one VCDIFF delta.
type vdecoder struct {
	cfg     *config
	src     *source
	in      *bufio.Reader
	out     windowWriter
	table   *codeTable
	cache   *addrCache
	hist    history
	written int64
	body    [2][]byte  // the sections of two windows: one runs while the next is read
	sec     *secondary // nil without VCD_DECOMPRESS
	exp     *expander  // expands sections on another goroutine; nil until needed
	pending *window    // the window being expanded
}

// DecodeVCDIFF applies the RFC 3284 delta read from delta to the base (its
// first baseSize bytes) and writes the target to out, one window at a time.
// It accepts xdelta3's application header and Adler-32 window checksums
// (verifying the latter), application-defined code tables and xdelta3's
// secondary compressors (lzma, djw, fgk). Malformed deltas give errors
// wrapping ErrCorrupt. Windows are written to out on a goroutine of its
// own while the next decodes, so out may be written while delta is read:
// state the two share must be safe for that. No write is in progress or
// made once DecodeVCDIFF has returned.
func DecodeVCDIFF(base io.ReaderAt, baseSize int64, delta io.Reader, out io.Writer, opts ...Option) error {
	cfg := newConfig(opts)
	d := &vdecoder{
		cfg: cfg,
		src: newSource(base, baseSize, cfg.cacheSize),
		in:  bufio.NewReaderSize(delta, 64<<10),
		out: windowWriter{out: out},
	}
	d.hist.limit = cfg.history
	if cfg.work != nil {
		defer d.report(cfg.work)
	}
	if err := d.header(); err != nil {
		return fmt.Errorf("vcdiff header: %w", err)
	}
	defer d.stopExpand()
	defer d.out.stop()
	cur, err := d.next(0)
	if cur == nil && err == nil {
		// RFC 3284 encodes an empty target as one empty window (xdelta3
		// and hdig diff do): a delta that ends after its header was cut.
		return fmt.Errorf("vcdiff: %w: no window after the header (a truncated delta?)", ErrCorrupt)
	}
	for n := 0; cur != nil || err != nil; n++ {
		if err == nil {
			err = d.ready(cur)
		}
		if err != nil {
			return d.fail(n, err)
		}
		// With a secondary compressor, the next window is read now and
		// expanded on another core while this one runs.
		var ahead *window
		var aheadErr error
		if d.sec != nil {
			ahead, aheadErr = d.next(n + 1)
		}
		if err := d.run(cur, n); err != nil {
			return d.fail(n, err)
		}
		if d.sec == nil {
			ahead, aheadErr = d.next(n + 1)
		}
		cur, err = ahead, aheadErr
	}
	return d.out.wait()
}

// fail returns the error of window n, unless the write of an earlier
// window failed: the first error in the delta is the one reported.
func (d *vdecoder) fail(n int, err error) error {
	if werr := d.out.wait(); werr != nil {
		return werr
	}
	var named *windowError
	if errors.As(err, &named) {
		return err
	}
	return fmt.Errorf("vcdiff window %d: %w", n, err)
}

// next reads window n, if there is one, and starts its expansion.
func (d *vdecoder) next(n int) (*window, error) {
	ind, err := d.in.ReadByte()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	w := &window{slot: n % 2}
	if err := d.window(ind, w); err != nil {
		if !w.target {
			return nil, err
		}
		w.err = err // after the target segment's check, which comes first
		return w, nil
	}
	if w.dind != 0 {
		d.startExpand(w)
	}
	return w, nil
}

// ready checks that w can run, in the order of the delta: its target
// segment against the target decoded so far, then the rest of its reading,
// then its expansion.
func (d *vdecoder) ready(w *window) error {
	if w.target {
		if err := d.checkTarget(w); err != nil {
			return err
		}
	}
	if w.err != nil {
		return w.err
	}
	return d.expanded(w)
}

// report adds the work the decode did to w.
func (d *vdecoder) report(w *decodeWork) {
	w.histMoved += d.hist.moved
	if d.cache != nil {
		w.cacheCleared += d.cache.cleared
		w.cacheCopies += d.cache.copies
	}
}

func (d *vdecoder) header() error {
	var h [5]byte
	if _, err := io.ReadFull(d.in, h[:]); err != nil {
		return corruptf("want 5 header bytes: %v", err)
	}
	if !bytes.Equal(h[:3], vcdiffMagic) {
		return corruptf("want magic d6c3c4, got %x", h[:3])
	}
	switch {
	case h[3] == 'S':
		return fmt.Errorf("%w: open-vcdiff SDCH format (version 'S')", ErrUnsupported)
	case h[3] != 0:
		return fmt.Errorf("%w: vcdiff version %d (want 0)", ErrUnsupported, h[3])
	}
	ind := h[4]
	if ind&^(vcdDecompress|vcdCodeTable|vcdAppHeader) != 0 {
		return corruptf("unrecognized header indicator bits %#02x", ind)
	}
	if ind&vcdDecompress != 0 {
		id, err := d.in.ReadByte()
		if err != nil {
			return corruptf("truncated secondary compressor ID")
		}
		if d.sec, err = newSecondary(id); err != nil {
			return err
		}
	}
	d.table = defaultTable
	if ind&vcdCodeTable != 0 {
		b, err := d.readBlob("code table")
		if err != nil {
			return err
		}
		if d.table, err = decodeCodeTable(b); err != nil {
			return err
		}
	}
	d.cache = newAddrCache(d.table.near, d.table.same)
	if ind&vcdAppHeader != 0 {
		if _, err := d.readBlob("application header"); err != nil {
			return err
		}
	}
	return nil
}

// readBlob reads a length-prefixed header field.
func (d *vdecoder) readBlob(what string) ([]byte, error) {
	n, _, err := readVarint(d.in, maxHeaderSection, what+" length")
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.in, b); err != nil {
		return nil, corruptf("%s: want %d bytes: %v", what, n, err)
	}
	return b, nil
}

// decodeCodeTable decodes an application-defined code table (RFC 3284 §7):
// near and same cache sizes, then the 1536-byte table string as a delta
// against the default table's string, either a complete VCDIFF file (as
// xdelta3 and open-vcdiff wrote them) or a bare window.
func decodeCodeTable(b []byte) (*codeTable, error) {
	if len(b) < 2 {
		return nil, corruptf("code table: want cache sizes, got %d bytes", len(b))
	}
	near, same := int(b[0]), int(b[1])
	delta := b[2:]
	if !bytes.HasPrefix(delta, vcdiffMagic) {
		delta = append([]byte{0xd6, 0xc3, 0xc4, 0, 0}, delta...)
	} else if len(delta) > 4 && delta[4]&vcdCodeTable != 0 {
		return nil, corruptf("code table: nested code table")
	}
	dflt := defaultTable.bytes()
	var out bytes.Buffer
	err := DecodeVCDIFF(bytes.NewReader(dflt), int64(len(dflt)), bytes.NewReader(delta), &out,
		WithMaxWindow(1536), WithMaxOutput(1536), WithCacheSize(1<<16))
	if err != nil {
		return nil, fmt.Errorf("code table: %w", err)
	}
	return parseCodeTable(out.Bytes(), near, same)
}

// window reads one window, whose indicator has been read, into w.
func (d *vdecoder) window(ind byte, w *window) error {
	if ind&^(vcdSource|vcdTarget|vcdAdler32) != 0 {
		return corruptf("unrecognized window indicator bits %#02x", ind)
	}
	if ind&vcdSource != 0 && ind&vcdTarget != 0 {
		return corruptf("both VCD_SOURCE and VCD_TARGET set")
	}
	if ind&(vcdSource|vcdTarget) != 0 {
		if err := d.segment(ind, w); err != nil {
			return err
		}
	}
	return d.readBody(ind, w)
}

// segment reads and checks the source segment of a window.
func (d *vdecoder) segment(ind byte, w *window) error {
	n, _, err := readVarint(d.in, maxVarint32, "source segment length")
	if err != nil {
		return err
	}
	pos, _, err := readVarint(d.in, math.MaxInt64, "source segment position")
	if err != nil {
		return err
	}
	w.segLen, w.segPos = int(n), int64(pos)
	if ind&vcdSource != 0 {
		if w.segPos > d.src.size || int64(w.segLen) > d.src.size-w.segPos {
			return corruptf("source segment [%d, +%d) beyond the %d-byte base", w.segPos, w.segLen, d.src.size)
		}
		w.seg = func(dst []byte, off int64, n int) ([]byte, error) { return d.src.appendRange(dst, off, n) }
		return nil
	}
	w.target = true // checked against the target decoded so far when it runs
	w.seg = d.hist.appendRange
	return nil
}

// checkTarget checks the target segment of a window about to run.
func (d *vdecoder) checkTarget(w *window) error {
	if w.segPos > d.written || int64(w.segLen) > d.written-w.segPos {
		return corruptf("target segment [%d, +%d) beyond the %d bytes decoded", w.segPos, w.segLen, d.written)
	}
	if w.segPos < d.hist.start {
		return limitf("target segment at %d is older than the %d bytes of history kept", w.segPos, d.hist.limit)
	}
	return nil
}

// readBody reads the lengths, the checksum and the three sections.
func (d *vdecoder) readBody(ind byte, w *window) error {
	maxDelta := uint64(min(int64(d.cfg.maxWindow)*8+1<<20, maxVarint32))
	deltaLen, _, err := readVarint(d.in, maxDelta, "delta encoding length")
	if err != nil {
		return err
	}
	used := 0
	field := func(limit int, what string) int {
		if err != nil {
			return 0
		}
		var v uint64
		var n int
		v, n, err = readVarint(d.in, uint64(limit), what)
		used += n
		return int(v)
	}
	w.tgtLen = field(maxVarint32, "target window length")
	if err == nil && w.tgtLen > d.cfg.maxWindow {
		err = limitf("target window over %d bytes", d.cfg.maxWindow)
	}
	var dind byte
	if err == nil {
		if dind, err = d.in.ReadByte(); err != nil {
			err = corruptf("truncated delta indicator")
		}
		used++
		if err == nil && dind != 0 && d.sec == nil {
			err = corruptf("delta indicator %#02x without VCD_DECOMPRESS", dind)
		}
		if err == nil && dind&^(vcdDataComp|vcdInstComp|vcdAddrComp) != 0 {
			err = corruptf("unrecognized delta indicator bits %#02x", dind)
		}
	}
	dataLen := field(int(deltaLen), "data section length")
	instLen := field(int(deltaLen), "instructions section length")
	addrLen := field(int(deltaLen), "addresses section length")
	if err != nil {
		return err
	}
	if ind&vcdAdler32 != 0 {
		var c [4]byte
		if _, err := io.ReadFull(d.in, c[:]); err != nil {
			return corruptf("truncated adler32")
		}
		w.adler, w.hasAdler = uint32(c[0])<<24|uint32(c[1])<<16|uint32(c[2])<<8|uint32(c[3]), true
		used += 4
	}
	if want := uint64(used + dataLen + instLen + addrLen); deltaLen != want {
		return corruptf("delta encoding length: header says %d, fields and sections take %d", deltaLen, want)
	}
	body, err := readChunked(d.in, d.body[w.slot][:0], dataLen+instLen+addrLen)
	d.body[w.slot] = body
	if err != nil {
		return corruptf("truncated window sections: %v", err)
	}
	w.data = section{b: body[:dataLen], name: "data"}
	w.inst = section{b: body[dataLen : dataLen+instLen], name: "instructions"}
	w.addr = section{b: body[dataLen+instLen:], name: "addresses"}
	w.dind, w.limit = dind, int(maxDelta)
	return nil
}

// readChunked appends n bytes from r to dst, growing dst only as bytes
// arrive, so a lying length cannot force a large allocation.
func readChunked(r io.Reader, dst []byte, n int) ([]byte, error) {
	for n > 0 {
		k := min(n, 1<<20)
		start := len(dst)
		dst = append(dst, make([]byte, k)...)
		if _, err := io.ReadFull(r, dst[start:]); err != nil {
			return dst[:start], err
		}
		n -= k
	}
	return dst, nil
}
