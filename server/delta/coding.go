package delta

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/andybalholm/brotli"
	"github.com/hdig/hdig/server"
	"github.com/klauspost/compress/zstd"
)

// deltaEncodings are the content codings a 226 may carry (RFC 3229
// §10.7), in the order tried when sizes tie. The delta's sha-256 names
// each coded copy, so Repr-Digest (of the current instance) is unchanged
// and Content-Digest is of the coded bytes sent.
var deltaEncodings = []string{"zstd", "br"}

// coded is a delta as sent: its file, its size and its content coding.
type coded struct {
	*made
	encoding string // "" for none
}

// codeOnPathMax is the largest delta coded on a request's path: Brotli at
// quality 11 and zstd's best level code about half a megabyte a second on
// a loaded core, so up to 32 KiB takes a few tens of milliseconds. A
// larger delta is sent in the best coding made so far and coded in the
// background for the next request.
const codeOnPathMax = 32 << 10

// codeHook, when set (by tests), runs before each coding of a delta is
// made, with whether it is made in the background.
var codeHook func(background bool)

// errNotCoded: the coding of a delta is not made yet.
var errNotCoded = errors.New("delta coding not made yet")

// smallestCoding returns the smallest of d and its codings accepted by
// the request's Accept-Encoding; a coding that fails is skipped, one not
// made yet is made here only when d is small (codeOnPathMax), else in
// the background.
func (h *Handler) smallestCoding(r *http.Request, d *made) coded {
	best := coded{made: d}
	var later []string
	for _, enc := range server.AcceptedCodings(r.Header, deltaEncodings) {
		c, err := h.codedFile(d, enc, d.size <= codeOnPathMax, false)
		if errors.Is(err, errNotCoded) {
			later = append(later, enc)
			continue
		}
		if err != nil {
			h.log.Warn("delta coding", "coding", enc, "err", err)
			continue
		}
		if c.size < best.size {
			best = coded{made: c, encoding: enc}
		}
	}
	if len(later) > 0 {
		h.codeLater(d, later)
	}
	return best
}

// codeLater makes the codings encs of delta d in the background, one such
// job at a time (with encodeLater's): while one runs, a later request asks
// again.
func (h *Handler) codeLater(d *made, encs []string) {
	if !h.bgBusy.CompareAndSwap(false, true) {
		return
	}
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		defer h.bgBusy.Store(false)
		h.codeAll(d, encs)
	}()
}

// codeAll makes the codings encs of delta d, in the background.
func (h *Handler) codeAll(d *made, encs []string) {
	for _, enc := range encs {
		if _, err := h.codedFile(d, enc, true, true); err != nil {
			h.log.Warn("delta coding in background", "coding", enc, "err", err)
		}
	}
}

// codedFile returns delta d compressed by enc, made once and kept next to
// it (removed with it: its name starts with the delta's); when it is not
// made yet, it is made only if make is set, else errNotCoded.
func (h *Handler) codedFile(d *made, enc string, make, background bool) (*made, error) {
	path := d.path + "~" + enc
	defer h.lock(path)()
	if fi, err := os.Stat(path); err == nil {
		return &made{path: path, size: fi.Size(), ims: d.ims}, nil
	}
	if !make {
		return nil, errNotCoded
	}
	if codeHook != nil {
		codeHook(background)
	}
	src, err := os.Open(d.path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	err = writeAtomic(path, func(w io.Writer) error { return compress(w, src, enc, d.size) })
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
	return &made{path: path, size: fi.Size(), ims: d.ims}, nil
}

// compress writes src coded by enc to w: the strongest settings for
// deltas up to 4 MiB (made once, sent many times), faster ones above.
func compress(w io.Writer, src io.Reader, enc string, size int64) error {
	var zw io.WriteCloser
	switch enc {
	case "br":
		q := brotli.BestCompression
		if size > 4<<20 {
			q = 7
		}
		zw = brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: q, LGWin: 24})
	default:
		lvl := zstd.SpeedBestCompression
		if size > 4<<20 {
			lvl = zstd.SpeedBetterCompression
		}
		z, err := zstd.NewWriter(w, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(8<<20))
		if err != nil {
			return err
		}
		zw = z
	}
	if _, err := io.Copy(zw, src); err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}
