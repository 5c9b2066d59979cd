package delta

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/hdig/hdig/internal/ownfile"
	"github.com/hdig/hdig/patch"
)

// deltaEncodings are the compressions a delta may be sent in after its
// delta coding, as instance manipulations ("IM: vcdiff, zstd"; RFC 3229
// §10.7.3: a compressed delta is an instance manipulation, while a
// Content-Encoding on a 226 would say the delta is between coded
// instances), in the order tried when sizes tie. The delta's sha-256
// names each compressed copy; Repr-Digest (of the current instance) is
// unchanged and Content-Digest is of the bytes sent.
var deltaEncodings = []string{"zstd", "br"}

// codeOnPathMax is the largest delta coded on a request's path: Brotli at
// quality 11 and zstd's best level code about half a megabyte a second on
// a loaded core, so up to 32 KiB takes a few tens of milliseconds. A
// larger delta is sent in the best coding made so far and coded in the
// background for the next request.
const codeOnPathMax = 32 << 10

// codeHook, when set (by tests), runs before each coding of a delta is
// made, with its context (inBackground tells whether it is made in the
// background).
var codeHook func(ctx context.Context)

// errNotCoded: the coding of a delta is not made yet.
var errNotCoded = errors.New("delta coding not made yet")

// smallestCoding returns the smallest of d and its compressions the A-IM
// accepts after d's delta coding; a compression that fails is skipped, one
// not made yet is made here only when d is small (codeOnPathMax), else in
// the background.
func (h *Handler) smallestCoding(ctx context.Context, aim []patch.Manipulation, d *made) *made {
	best := d
	var later []string
	for _, z := range compressible(d, aim, deltaEncodings) {
		c, err := h.codedFile(ctx, d, z.Name, d.size <= codeOnPathMax)
		if errors.Is(err, errNotCoded) {
			later = append(later, z.Name)
			continue
		}
		if err != nil {
			if ctx.Err() == nil { // else the client went away: nothing failed
				h.log.Warn("delta compression", "im", z.Name, "err", err)
			}
			continue
		}
		if c.size < best.size {
			best = c
		}
	}
	if len(later) > 0 {
		h.codeLater(d, later)
	}
	return best
}

// compressible returns the compressions among names that may follow
// delta d's manipulations by the A-IM: none when d is compressed already.
func compressible(d *made, aim []patch.Manipulation, names []string) []patch.Manipulation {
	if len(d.ims) != 1 {
		return nil
	}
	return acceptedAfter(aim, d.ims[0], names)
}

// codeLater makes the codings encs of delta d in the background, one such
// job at a time (with encodeLater's): while one runs, a later request asks
// again.
func (h *Handler) codeLater(d *made, encs []string) {
	if !h.bgBusy.CompareAndSwap(false, true) {
		return
	}
	started := h.goBackground(func(ctx context.Context) {
		defer h.bgBusy.Store(false)
		h.codeAll(ctx, d, encs)
	})
	if !started {
		h.bgBusy.Store(false)
	}
}

// codeAll makes the codings encs of delta d, in the background (ctx).
func (h *Handler) codeAll(ctx context.Context, d *made, encs []string) {
	if len(d.ims) != 1 {
		return // compressed already
	}
	for _, enc := range encs {
		if _, err := h.codedFile(ctx, d, enc, true); err != nil {
			if ctx.Err() != nil {
				return
			}
			h.log.Warn("delta coding in background", "coding", enc, "err", err)
		}
	}
}

// codedFile returns delta d compressed by enc (its IM list ends in enc), made once and kept next to
// it (removed with it: its name starts with the delta's); when it is not
// made yet, it is made only if make is set, else errNotCoded.
func (h *Handler) codedFile(ctx context.Context, d *made, enc string, make bool) (*made, error) {
	path := d.path + "~" + enc
	defer h.lock(path)()
	if fi, err := os.Stat(path); err == nil {
		return &made{path: path, size: fi.Size(), ims: withIM(d.ims, enc)}, nil
	}
	if !make {
		return nil, errNotCoded
	}
	if codeHook != nil {
		codeHook(ctx)
	}
	src, err := ownfile.Open(d.path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	err = writeAtomic(path, func(w io.Writer) error { return patch.Compress(w, ctxReader{ctx, src}, enc, d.size) })
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	h.idxMu.Lock()
	prefix := filepath.Base(d.path)[:64]
	h.deltasFrom[prefix] = append(h.deltasFrom[prefix], filepath.Base(path))
	h.idxMu.Unlock()
	return &made{path: path, size: fi.Size(), ims: withIM(d.ims, enc)}, nil
}

// withIM returns ims followed by im, in a new slice.
func withIM(ims []string, im string) []string {
	return append(slices.Clip(ims), im)
}
