package patch

import (
	"hash/adler32"
)

// window is one decoded window header with its sections.
type window struct {
	segLen     int
	segPos     int64
	seg        func(dst []byte, off int64, n int) ([]byte, error)
	tgtLen     int
	adler      uint32
	hasAdler   bool
	data, inst section
	addr       section
	target     bool  // the segment is of the target: checked when the window runs
	err        error // an error reading a window of the target, reported after that check
	slot       int   // which of the decoder's two sets of buffers holds the sections
	dind       byte  // Delta_Indicator: the sections still to expand
	limit      int   // largest size an expanded section may have
	expanding  bool  // the sections are being expanded on the expander
}

// run executes the instructions of w (RFC 3284 §5, §6) and writes the
// target window.
func (d *vdecoder) run(w *window, n int) error {
	t := d.hist.spare(min(w.tgtLen, 16<<20))
	if err := d.out.release(t); err != nil {
		return err
	}
	d.cache.reset()
	var err error
	for w.inst.remaining() > 0 && err == nil {
		code, _ := w.inst.ReadByte()
		e := &d.table.entries[code]
		if t, err = d.exec(w, t, e.inst1, e.size1, e.mode1); err == nil {
			t, err = d.exec(w, t, e.inst2, e.size2, e.mode2)
		}
	}
	if err != nil {
		return err
	}
	if len(t) != w.tgtLen {
		return corruptf("instructions produce %d bytes, want %d", len(t), w.tgtLen)
	}
	if w.data.remaining() != 0 || w.addr.remaining() != 0 {
		return corruptf("%d data and %d address bytes left unused", w.data.remaining(), w.addr.remaining())
	}
	if w.hasAdler {
		if got := adler32.Checksum(t); got != w.adler {
			return corruptf("adler32 mismatch: want %08x, got %08x", w.adler, got)
		}
	}
	if d.cfg.maxOutput > 0 && d.written+int64(len(t)) > d.cfg.maxOutput {
		return limitf("output over %d bytes", d.cfg.maxOutput)
	}
	if err := d.out.put(t, n); err != nil {
		return err
	}
	d.hist.add(t, d.written)
	d.written += int64(len(t))
	return nil
}

// exec executes one instruction of a code table entry, appending to t.
func (d *vdecoder) exec(w *window, t []byte, inst, size, mode byte) ([]byte, error) {
	if inst == instNoop {
		return t, nil
	}
	n := int(size)
	if n == 0 {
		var err error
		if n, err = w.inst.size(maxVarint32); err != nil {
			return t, err
		}
	}
	if n > w.tgtLen-len(t) {
		return t, corruptf("instruction of %d bytes overruns the %d-byte target window at %d", n, w.tgtLen, len(t))
	}
	switch inst {
	case instAdd:
		p, err := w.data.take(n)
		if err != nil {
			return t, err
		}
		return append(t, p...), nil
	case instRun:
		p, err := w.data.take(1)
		if err != nil {
			return t, err
		}
		start := len(t)
		t = append(t, make([]byte, n)...)
		for i := start; i < len(t); i++ {
			t[i] = p[0]
		}
		return t, nil
	}
	here := w.segLen + len(t)
	addr, err := d.cache.decode(int(mode), here, &w.addr)
	if err != nil {
		return t, err
	}
	return copyU(w, t, addr, n)
}

// copyU appends n bytes of the superstring U = segment + target starting at
// addr. A copy may start in the segment and run on into the target, and may
// overlap the bytes it produces (RFC 3284 §3).
func copyU(w *window, t []byte, addr, n int) ([]byte, error) {
	if addr < w.segLen {
		k := min(n, w.segLen-addr)
		var err error
		if t, err = w.seg(t, w.segPos+int64(addr), k); err != nil {
			return t, err
		}
		addr, n = addr+k, n-k
	}
	for n > 0 {
		p := addr - w.segLen
		k := min(n, len(t)-p)
		t = append(t, t[p:p+k]...)
		addr, n = addr+k, n-k
	}
	return t, nil
}

// history keeps at least the last limit bytes of decoded target for
// VCD_TARGET windows: a window that long becomes the history itself (the
// buffers alternate), shorter ones are appended to it. The buffer may grow
// to twice the limit before its oldest bytes are dropped, so that each
// decoded byte is moved a bounded number of times however small the
// windows are.
type history struct {
	buf   []byte
	start int64 // target offset of buf[0]
	limit int
	free  []byte
	moved int64 // bytes copied into buf, counted for tests
}

// spare returns the empty window buffer, at least size bytes of capacity.
func (h *history) spare(size int) []byte {
	if cap(h.free) < size {
		h.free = make([]byte, 0, size)
	}
	return h.free[:0]
}

// add records window t, decoded at offset off, keeping the last limit bytes.
func (h *history) add(t []byte, off int64) {
	end := off + int64(len(t))
	if len(t) >= h.limit {
		// The whole window is the history: swap buffers instead of copying.
		h.buf, h.free, h.start = t, h.buf[:0], off
		return
	}
	h.free = t
	if len(h.buf)+len(t) > 2*h.limit {
		drop := len(h.buf) + len(t) - h.limit
		h.buf = h.buf[:copy(h.buf, h.buf[drop:])]
		h.moved += int64(len(h.buf))
	}
	h.buf = append(h.buf, t...)
	h.moved += int64(len(t))
	h.start = end - int64(len(h.buf))
}

// appendRange appends n bytes of decoded target starting at off.
func (h *history) appendRange(dst []byte, off int64, n int) ([]byte, error) {
	if off < h.start || off-h.start+int64(n) > int64(len(h.buf)) {
		return dst, corruptf("target segment [%d, +%d) outside the history kept", off, n)
	}
	return append(dst, h.buf[off-h.start:][:n]...), nil
}
