package patch

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hdig/hdig/recompress"
)

// InflatedIM names the delta coding "VCDIFF between the expanded forms of
// base and target" (package recompress): each zlib stream that Go's zlib
// writer reproduces is diffed as the bytes it holds, and recompressed by
// the decoder. Between two builds of a Go program, whose DWARF sections
// are zlib streams, it is a third of plain VCDIFF. Both ends must expand
// a base alike, so the name carries hdig's format; a decoder whose zlib
// writer (another Go release's) writes other bytes fails the Adler-32 of
// a window (its expanded base differs) or the CRC-32 of a stream, and the
// client fetches the whole.
const InflatedIM = "hdig-vcdiff-inflated"

// ErrNothingInflated is EncodeInflated's error for a target with no zlib
// stream to expand: its delta would be plain VCDIFF's, with more work.
var ErrNothingInflated = errors.New("the target holds no zlib stream hdig reproduces")

// EncodeInflated writes the hdig-vcdiff-inflated delta from base to
// target: target and base are expanded into temporary files, then coded
// by EncodeVCDIFF with opts.
func EncodeInflated(base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer, opts ...Option) error {
	t, err := spool(target)
	if err != nil {
		return err
	}
	defer drop(t)
	ti, err := t.Stat()
	if err != nil {
		return err
	}
	tx, _, st, err := expandTemp(t, ti.Size())
	if err != nil {
		return err
	}
	defer drop(tx)
	if st.Streams == 0 {
		return ErrNothingInflated
	}
	bx, bxSize, _, err := expandTemp(base, baseSize)
	if err != nil {
		return err
	}
	defer drop(bx)
	// Each window carries xdelta3's Adler-32 of the expanded target it
	// builds, whatever opts say: a decoder whose expanded base differs
	// (another hdig, another Go release's zlib writer) fails there,
	// rather than rebuilding other bytes that only the digest catches.
	opts = append(opts[:len(opts):len(opts)], WithChecksum(true))
	return EncodeVCDIFF(bx, bxSize, tx, out, opts...)
}

// DecodeInflated applies an hdig-vcdiff-inflated delta to base, writing the
// target to out. The base is expanded into a temporary file; the VCDIFF
// decoder's output (the expanded target, bounded by MaxRatio times
// WithMaxOutput) is contracted as it comes.
func DecodeInflated(base io.ReaderAt, baseSize int64, delta io.Reader, out io.Writer, opts ...Option) error {
	bx, bxSize, _, err := expandTemp(base, baseSize)
	if err != nil {
		return err
	}
	defer drop(bx)
	cfg := newConfig(opts)
	inner := append(opts[:len(opts):len(opts)], WithMaxOutput(expandedLimit(cfg.maxOutput)))
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := DecodeVCDIFF(bx, bxSize, delta, pw, inner...)
		pw.CloseWithError(err)
		done <- err
	}()
	w := out
	if cfg.maxOutput > 0 {
		w = &limitedWriter{w: out, limit: cfg.maxOutput}
	}
	cerr := recompress.Contract(pr, w)
	pr.CloseWithError(errContracted)
	derr := <-done
	switch {
	case derr != nil && !errors.Is(derr, errContracted):
		return derr // the delta's fault, which Contract saw as a read error
	case errors.Is(cerr, recompress.ErrCorrupt):
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, InflatedIM, cerr)
	}
	return cerr
}

// errContracted stops a decoder whose output Contract no longer reads.
var errContracted = errors.New("the expanded target was contracted")

// expandedLimit is the bound on an expanded target whose contracted form
// is at most n bytes (0: none): every stream inflates at most MaxRatio
// times, and each segment's header is a few bytes.
func expandedLimit(n int64) int64 {
	if n <= 0 || n > 1<<56 {
		return 0
	}
	return recompress.MaxRatio*n + 1<<20
}

// limitedWriter fails a write past limit bytes in all.
type limitedWriter struct {
	w            io.Writer
	limit, wrote int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.wrote+int64(len(p)) > l.limit {
		return 0, limitf("output over %d bytes", l.limit)
	}
	l.wrote += int64(len(p))
	return l.w.Write(p)
}

// expandTemp expands src into a new temporary file, at its start, and
// returns the file's size.
func expandTemp(src io.ReaderAt, size int64) (*os.File, int64, recompress.Stats, error) {
	f, err := os.CreateTemp("", "hdig-inflated-*")
	if err != nil {
		return nil, 0, recompress.Stats{}, err
	}
	st, err := recompress.Expand(src, size, f)
	var n int64
	if err == nil {
		n, err = f.Seek(0, io.SeekCurrent)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		drop(f)
		return nil, 0, st, err
	}
	return f, n, st, nil
}

// spool copies r into a new temporary file, at its start.
func spool(r io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", "hdig-inflated-*")
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(f, r)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		drop(f)
		return nil, err
	}
	return f, nil
}

// drop closes and removes a temporary file.
func drop(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}
