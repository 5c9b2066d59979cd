package patch

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Delta_Indicator bits (RFC 3284 §4.3): which sections of a window are
// compressed with the secondary compressor named in the file header.
const (
	vcdDataComp = 0x01
	vcdInstComp = 0x02
	vcdAddrComp = 0x04
)

// xdelta3's private secondary compressor IDs (xdelta3.h).
const (
	secDJW  = 1
	secLZMA = 2
	secFGK  = 16
)

// secondaryNames are xdelta3's private secondary compressor IDs.
var secondaryNames = map[byte]string{secDJW: "djw", secLZMA: "lzma", secFGK: "fgk"}

// sectionDecoder expands one compressed section of a window. xdelta3 keeps
// one decoder per kind of section (data, instructions, addresses) for the
// whole delta, so a decoder may carry state from window to window.
type sectionDecoder interface {
	// decode decompresses all of src into exactly n bytes, returned in
	// buf's array when it is large enough. It allocates only as much as
	// src can make, never n bytes on the word of the size field alone.
	decode(src, buf []byte, n int) ([]byte, error)
}

// secondary expands the compressed sections of every window of a delta.
type secondary struct {
	id   byte
	name string
	dec  [3]sectionDecoder // data, instructions, addresses; made on first use
	buf  [2][3][]byte      // by the window's slot: one window's while the next expands
}

// newSecondary returns the expander for compressor id, or an error naming
// an unknown one.
func newSecondary(id byte) (*secondary, error) {
	name, ok := secondaryNames[id]
	if !ok {
		return nil, fmt.Errorf("%w: secondary compressor ID %d (known: 1 djw, 2 lzma, 16 fgk)", ErrUnsupported, id)
	}
	return &secondary{id: id, name: name}, nil
}

func (s *secondary) newDecoder() sectionDecoder {
	switch s.id {
	case secLZMA:
		return &lzmaSection{}
	case secDJW:
		return djwSection{}
	}
	return &fgkSection{}
}

// expand replaces each section of w that dind marks compressed by its
// decompressed bytes. Each compressed section starts with its decompressed
// size (xdelta3-second.h), which must not be zero and is checked before
// anything is decoded: every instruction makes at least one byte, so the
// data section is at most the target window, the instructions (a code and
// at most one 5-byte size per byte made) at most 6 times it, the addresses
// (at most 5 bytes per COPY) 5 times it, and none more than limit. The
// size is a claim of the delta: the decoders allocate as the compressed
// bytes can make, not as it says. The three kinds of section have a
// decoder each, so they decode side by side; the error reported is the
// first in section order, as if one by one.
func (s *secondary) expand(w *window) error {
	secs := [3]*section{&w.data, &w.inst, &w.addr}
	var errs [3]error
	var outs [3][]byte
	var started [3]bool
	var wg sync.WaitGroup
	for i, bit := range [3]byte{vcdDataComp, vcdInstComp, vcdAddrComp} {
		if w.dind&bit == 0 {
			continue
		}
		n, err := s.size(w, i, secs[i])
		if err != nil {
			errs[i] = err
			break
		}
		started[i] = true
		buf := &s.buf[w.slot][i]
		wg.Go(func() {
			errs[i] = catch(func() error {
				out, err := s.dec[i].decode(secs[i].b[secs[i].pos:], (*buf)[:0], n)
				if cap(out) > cap(*buf) {
					*buf = out
				}
				outs[i] = out
				return err
			})
		})
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil {
			if !started[i] {
				return errs[i]
			}
			return fmt.Errorf("%s %s section: %w", s.name, secs[i].name, errs[i])
		}
		if started[i] {
			*secs[i] = section{b: outs[i], name: secs[i].name}
		}
	}
	return nil
}

// size reads the decompressed size of section i of w, making its decoder
// on first use.
func (s *secondary) size(w *window, i int, sec *section) (int, error) {
	n, err := sec.size(min(w.limit, [3]int{1, 6, 5}[i]*w.tgtLen))
	if err != nil {
		return 0, fmt.Errorf("%s %s section size: %w", s.name, sec.name, err)
	}
	if n == 0 {
		return 0, corruptf("%s %s section: decompressed size 0", s.name, sec.name)
	}
	if s.dec[i] == nil {
		s.dec[i] = s.newDecoder()
	}
	return n, nil
}

// prefixCoded returns buf with length n for a prefix code's output, once
// src can make n bytes: every code has at least one bit, so src makes at
// most 8 bytes per byte.
func prefixCoded(name string, src, buf []byte, n int) ([]byte, error) {
	if (n+7)/8 > len(src) {
		return nil, corruptf("%s: %d bytes of codes make at most %d bytes, not %d", name, len(src), 8*len(src), n)
	}
	if cap(buf) < n {
		return reserve(n, n), nil
	}
	return buf[:n], nil
}

// secondaryReserved counts the bytes the secondary decoders have reserved
// for output and dictionaries (reserve), so tests can bound a hostile
// delta's memory by counting, not by the runtime's allocation statistics.
var secondaryReserved atomic.Int64

// reserve allocates a buffer of length n and capacity c for a secondary
// decoder's output or dictionary, and counts it.
func reserve(n, c int) []byte {
	secondaryReserved.Add(int64(c))
	return make([]byte, n, c)
}

// extend returns dst longer by k bytes, reallocated (to at most limit
// bytes) only when its capacity is short.
func extend(dst []byte, k, limit int) []byte {
	need := len(dst) + k
	if need <= cap(dst) {
		return dst[:need]
	}
	b := reserve(need, min(max(need, 2*cap(dst)), max(limit, need)))
	copy(b, dst)
	return b
}

// expander runs the secondary decompression of one window at a time on its
// own goroutine, so the next window expands while the current one runs. It
// touches only the secondary's decoders and buffers, never the delta's
// reader: the decoder reads every window itself.
type expander struct {
	jobs chan *window
	done chan error // capacity 1: the goroutine never waits to report
}

// startExpand starts expanding w's sections.
func (d *vdecoder) startExpand(w *window) {
	if d.exp == nil {
		d.exp = &expander{jobs: make(chan *window), done: make(chan error, 1)}
		go func(e *expander, s *secondary) {
			for w := range e.jobs {
				e.done <- catch(func() error { return s.expand(w) })
			}
		}(d.exp, d.sec)
	}
	d.exp.jobs <- w
	w.expanding = true
	d.pending = w
}

// expanded waits until w's sections are expanded.
func (d *vdecoder) expanded(w *window) error {
	if !w.expanding {
		return nil
	}
	w.expanding, d.pending = false, nil
	return rethrow(<-d.exp.done)
}

// stopExpand waits for an expansion still running and ends the goroutine.
func (d *vdecoder) stopExpand() {
	if d.exp == nil {
		return
	}
	if d.pending != nil {
		d.expanded(d.pending)
	}
	close(d.exp.jobs)
}
