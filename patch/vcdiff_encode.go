package patch

import (
	"bufio"
	"errors"
	"hash/adler32"
	"io"
)

// EncodeVCDIFF writes an RFC 3284 delta from the base (its first baseSize
// bytes) to the target read from target. The target is encoded in windows
// (WithWindowSize, default 16 MiB), each a VCD_SOURCE window naming only the
// part of the base its copies use; instructions use the default code table,
// its combined ADD+COPY codes and the address caches. WithChecksum adds
// xdelta3's Adler-32 per window. "xdelta3 -d" decodes the output.
func EncodeVCDIFF(base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer, opts ...Option) error {
	cfg := newConfig(opts)
	m, err := newMatcher(base, baseSize, cfg, true)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	e := &vencoder{bw: bw, checksum: cfg.checksum, cache: newAddrCache(4, 3)}
	if _, err := bw.Write([]byte{0xd6, 0xc3, 0xc4, 0, 0}); err != nil {
		return err
	}
	buf := newBytes(cfg.windowSize)
	for first := true; ; first = false {
		n, rerr := io.ReadFull(target, buf)
		if rerr != nil && !errors.Is(rerr, io.EOF) && !errors.Is(rerr, io.ErrUnexpectedEOF) {
			return rerr
		}
		if n > 0 || first {
			if err := e.window(buf[:n], m.window(buf[:n])); err != nil {
				return err
			}
		}
		if rerr != nil {
			break
		}
	}
	return bw.Flush()
}

// vencoder turns the matcher's instructions into VCDIFF windows.
type vencoder struct {
	bw       *bufio.Writer
	checksum bool
	cache    *addrCache
	data     []byte
	inst     []byte
	addr     []byte
	head     []byte
	pend     int // pendNone, pendAdd or pendCopy
	pendN    int
	pendMode int
}

const (
	pendNone = iota
	pendAdd  // an ADD of 1..4 bytes that may pair with the next COPY
	pendCopy // a COPY of 4 bytes that may pair with the next ADD of 1
)

// window encodes target window t produced by ops.
func (e *vencoder) window(t []byte, ops []op) error {
	segPos, segEnd := int64(-1), int64(0)
	for _, o := range ops {
		if o.kind == instCopy && !o.self {
			if segPos < 0 || o.addr < segPos {
				segPos = o.addr
			}
			segEnd = max(segEnd, o.addr+int64(o.n))
		}
	}
	s := 0
	if segPos >= 0 {
		s = int(segEnd - segPos)
	}
	e.data, e.inst, e.addr = e.data[:0], e.inst[:0], e.addr[:0]
	e.cache.reset()
	pos := 0
	for _, o := range ops {
		switch o.kind {
		case instAdd:
			e.data = append(e.data, t[pos:pos+o.n]...)
			e.add(o.n)
		case instRun:
			e.flush()
			e.data = append(e.data, t[pos])
			e.inst = appendVarint(append(e.inst, 0), uint64(o.n))
		case instCopy:
			a := s + int(o.addr)
			if !o.self {
				a = int(o.addr - segPos)
			}
			var mode int
			e.addr, mode = e.cache.encode(e.addr, a, s+pos)
			e.copy(o.n, mode)
		}
		pos += o.n
	}
	e.flush()
	return e.write(t, s, segPos)
}

// write emits the window header and sections (RFC 3284 §4.2).
func (e *vencoder) write(t []byte, s int, segPos int64) error {
	ind := byte(0)
	if s > 0 {
		ind |= vcdSource
	}
	if e.checksum {
		ind |= vcdAdler32
	}
	body := appendVarint(e.head[:0], uint64(len(t)))
	body = append(body, 0)
	body = appendVarint(body, uint64(len(e.data)))
	body = appendVarint(body, uint64(len(e.inst)))
	body = appendVarint(body, uint64(len(e.addr)))
	if e.checksum {
		c := adler32.Checksum(t)
		body = append(body, byte(c>>24), byte(c>>16), byte(c>>8), byte(c))
	}
	deltaLen := len(body) + len(e.data) + len(e.inst) + len(e.addr)
	head := append(body, ind)
	mark := len(body)
	if s > 0 {
		head = appendVarint(head, uint64(s))
		head = appendVarint(head, uint64(segPos))
	}
	head = appendVarint(head, uint64(deltaLen))
	e.head = head
	for _, p := range [][]byte{head[mark:], body, e.data, e.inst, e.addr} {
		if _, err := e.bw.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// add records an ADD of n bytes, pairing it with a pending COPY 4.
func (e *vencoder) add(n int) {
	if e.pend == pendCopy && n == 1 {
		e.inst = append(e.inst, byte(247+e.pendMode))
		e.pend = pendNone
		return
	}
	e.flush()
	if n <= 4 {
		e.pend, e.pendN = pendAdd, n
		return
	}
	e.emitAdd(n)
}

// copy records a COPY of n bytes in mode, pairing it with a pending ADD.
func (e *vencoder) copy(n, mode int) {
	if e.pend == pendAdd {
		a := e.pendN
		switch {
		case mode <= 5 && n >= 4 && n <= 6:
			e.inst = append(e.inst, byte(163+12*mode+3*(a-1)+(n-4)))
			e.pend = pendNone
			return
		case mode >= 6 && n == 4:
			e.inst = append(e.inst, byte(235+4*(mode-6)+(a-1)))
			e.pend = pendNone
			return
		}
	}
	e.flush()
	if n == 4 {
		e.pend, e.pendMode = pendCopy, mode
		return
	}
	e.emitCopy(n, mode)
}

func (e *vencoder) flush() {
	switch e.pend {
	case pendAdd:
		e.emitAdd(e.pendN)
	case pendCopy:
		e.emitCopy(4, e.pendMode)
	}
	e.pend = pendNone
}

func (e *vencoder) emitAdd(n int) {
	if n <= 17 {
		e.inst = append(e.inst, byte(1+n))
		return
	}
	e.inst = appendVarint(append(e.inst, 1), uint64(n))
}

func (e *vencoder) emitCopy(n, mode int) {
	if n >= 4 && n <= 18 {
		e.inst = append(e.inst, byte(19+16*mode+n-3))
		return
	}
	e.inst = appendVarint(append(e.inst, byte(19+16*mode)), uint64(n))
}
