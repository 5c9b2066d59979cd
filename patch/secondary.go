package patch

import (
	"fmt"
	"sync"
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
	// decode decompresses all of src into exactly len(dst) bytes.
	decode(src, dst []byte) error
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
// anything is allocated: every instruction makes at least one byte, so the
// data section is at most the target window, the instructions (a code and
// at most one 5-byte size per byte made) at most 6 times it, the addresses
// (at most 5 bytes per COPY) 5 times it, and none more than limit. The
// three kinds of section have a decoder each, so they decode side by side;
// the error reported is the first in section order, as if one by one.
func (s *secondary) expand(w *window) error {
	secs := [3]*section{&w.data, &w.inst, &w.addr}
	var errs [3]error
	var outs [3][]byte
	var wg sync.WaitGroup
	for i, bit := range [3]byte{vcdDataComp, vcdInstComp, vcdAddrComp} {
		if w.dind&bit == 0 {
			continue
		}
		out, err := s.output(w, i, secs[i])
		if err != nil {
			errs[i] = err
			break
		}
		outs[i] = out
		wg.Go(func() { errs[i] = catch(func() error { return s.dec[i].decode(secs[i].b[secs[i].pos:], out) }) })
	}
	wg.Wait()
	for i, out := range outs {
		if errs[i] != nil {
			if out == nil {
				return errs[i]
			}
			return fmt.Errorf("%s %s section: %w", s.name, secs[i].name, errs[i])
		}
		if out != nil {
			*secs[i] = section{b: out, name: secs[i].name}
		}
	}
	return nil
}

// output reads the decompressed size of section i of w and returns the
// buffer it decompresses into, making its decoder on first use.
func (s *secondary) output(w *window, i int, sec *section) ([]byte, error) {
	n, err := sec.size(min(w.limit, [3]int{1, 6, 5}[i]*w.tgtLen))
	if err != nil {
		return nil, fmt.Errorf("%s %s section size: %w", s.name, sec.name, err)
	}
	if n == 0 {
		return nil, corruptf("%s %s section: decompressed size 0", s.name, sec.name)
	}
	buf := &s.buf[w.slot][i]
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	if s.dec[i] == nil {
		s.dec[i] = s.newDecoder()
	}
	return (*buf)[:n], nil
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
