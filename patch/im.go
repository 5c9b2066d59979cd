package patch

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// codec is one instance manipulation: a delta coding (two inputs) or a
// compression (one input).
type codec struct {
	decode      func(base io.ReaderAt, baseSize int64, body io.Reader, out io.Writer, opts ...Option) error
	encode      func(base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer, opts ...Option) error
	compression bool // one input: newCompressor and newDecompressor
}

var codecs = map[string]codec{
	"vcdiff":   {decode: DecodeVCDIFF, encode: EncodeVCDIFF},
	InflatedIM: {decode: DecodeInflated, encode: EncodeInflated},
	"gdiff":    {decode: DecodeGDIFF, encode: EncodeGDIFF},
	"diffe":    {decode: ApplyDiffE, encode: EncodeDiffE},
	"zstd":     {compression: true},
	"br":       {compression: true},
	"gzip":     {compression: true},
	"deflate":  {compression: true},
}

// Supported lists the instance manipulations Undo and Encode handle, delta
// codings first, in order of preference.
func Supported() []string {
	return []string{"vcdiff", InflatedIM, "gdiff", "diffe", "zstd", "br", "gzip", "deflate"}
}

// IsDelta reports whether im is a delta coding (needs a base instance).
func IsDelta(im string) bool {
	c, ok := codecs[imName(im)]
	return ok && c.decode != nil
}

// Detect names the delta format a delta starts with: "vcdiff" (D6 C3 C4)
// or "gdiff" (D1 FF D1 FF), or "" if neither.
func Detect(prefix []byte) string {
	switch {
	case bytes.HasPrefix(prefix, vcdiffMagic):
		return "vcdiff"
	case bytes.HasPrefix(prefix, gdiffMagic[:4]):
		return "gdiff"
	}
	return ""
}

// imName lower-cases an instance-manipulation and drops its imparams.
func imName(im string) string {
	name, _, _ := strings.Cut(im, ";")
	return strings.ToLower(strings.TrimSpace(name))
}

// CheckIM checks an IM list (in the order the server applied them, as in
// the IM header) is one Undo reverses: at most one delta coding, first,
// then at most one compression. A compression of a compression gains
// nothing (RFC 3229 §10.7.3 compresses a delta once), while each costs a
// decoder (a zstd window of up to MaxZstdWindow) and multiplies the
// expansion of a bomb.
func CheckIM(ims []string) error {
	_, err := plan(ims)
	return err
}

// plan is CheckIM, returning the lowercased names.
func plan(ims []string) ([]string, error) {
	var names []string
	compressed := ""
	for i, im := range ims {
		name := imName(im)
		c, ok := codecs[name]
		switch {
		case name == "range":
			return nil, fmt.Errorf("%w: instance manipulation \"range\": reassemble the ranges before undoing the others", ErrUnsupported)
		case !ok:
			return nil, fmt.Errorf("%w: instance manipulation %q (supported: %s)", ErrUnsupported, im, strings.Join(Supported(), ", "))
		case c.decode != nil && i > 0:
			return nil, fmt.Errorf("%w: delta coding %q after %q: a delta must be the first instance manipulation", ErrUnsupported, name, names[i-1])
		case c.compression && compressed != "":
			return nil, fmt.Errorf("%w: compression %q after compression %q: hdig undoes one compression", ErrUnsupported, name, compressed)
		case c.compression:
			compressed = name
		}
		names = append(names, name)
	}
	return names, nil
}

// Undo reverses the instance manipulations ims (listed in the order they
// were applied, as in the IM header; RFC 3229 §10.5.2) on body, in reverse
// order, writing the instance to out: "diffe, gzip" gunzips body and then
// applies the ed script to the base. An empty list copies body. A VCDIFF
// decoder writes to out on a goroutine of its own, while body is read on
// the caller's (see DecodeVCDIFF).
func Undo(ims []string, base io.ReaderAt, baseSize int64, body io.Reader, out io.Writer, opts ...Option) error {
	names, err := plan(ims)
	if err != nil {
		return err
	}
	r := body
	var layers []*layer
	for i := len(names) - 1; i >= 0; i-- {
		c := codecs[names[i]]
		if c.decode != nil {
			err := decodeBounded(c, base, baseSize, r, out, len(names) > 1, opts)
			for _, l := range layers {
				if err != nil && l.err != nil {
					return l.err // the delta never came whole: not a base's fault
				}
			}
			return err
		}
		rc, err := newDecompressor(names[i], r)
		if err != nil {
			return fmt.Errorf("%w: %w: %s: %v", ErrCorrupt, ErrCompression, names[i], err)
		}
		defer rc.Close()
		l := &layer{name: names[i], r: rc}
		layers = append(layers, l)
		r = l
	}
	// Decompressed output is bounded like a decoder's (WithMaxOutput), so
	// that a small gzip bomb cannot write without end.
	limit := newConfig(opts).maxOutput
	src := r
	if limit > 0 {
		src = io.LimitReader(r, limit)
	}
	if _, err := io.Copy(out, src); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, strings.Join(names, ", "), err)
	}
	if limit > 0 {
		var one [1]byte
		switch n, err := io.ReadFull(r, one[:]); {
		case n > 0:
			return fmt.Errorf("%s: %w", strings.Join(names, ", "), limitf("output over %d bytes", limit))
		case err != io.EOF:
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, strings.Join(names, ", "), err)
		}
	}
	return nil
}

// A layer reads a compression's output and keeps its first failure.
type layer struct {
	name string
	r    io.Reader
	err  error
}

func (l *layer) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && err != io.EOF && l.err == nil {
		l.err = fmt.Errorf("%w: %w: %s: %v", ErrCorrupt, ErrCompression, l.name, err)
	}
	return n, err
}

// decodeBounded runs the delta coding c; when its delta comes from a
// compression, the decompressed bytes are bounded by what it writes
// (boundedDelta).
func decodeBounded(c codec, base io.ReaderAt, baseSize int64, delta io.Reader, out io.Writer, decompressed bool, opts []Option) error {
	if !decompressed {
		return c.decode(base, baseSize, delta, out, opts...)
	}
	cw := &countedWriter{w: out}
	bd := &boundedDelta{r: delta, out: cw, floor: deltaFloor(newConfig(opts))}
	err := c.decode(base, baseSize, bd, cw, opts...)
	if bd.err != nil {
		return bd.err
	}
	return err
}

// Encode applies the instance manipulation im to target for a server: a
// delta coding against the base, or a compression of target.
func Encode(im string, base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer, opts ...Option) error {
	return EncodeList([]string{im}, base, baseSize, target, out, opts...)
}

// EncodeList applies the instance manipulations ims in order (a delta
// coding, if any, first; then compressions), as the IM header will list them.
func EncodeList(ims []string, base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer, opts ...Option) error {
	names, err := plan(ims)
	if err != nil {
		return err
	}
	var closers []io.WriteCloser
	w := out
	for i := len(names) - 1; i >= 0; i-- {
		if codecs[names[i]].compression {
			wc, err := newCompressor(names[i], w, -1)
			if err != nil {
				return err
			}
			closers = append(closers, wc)
			w = wc
		}
	}
	if len(names) > 0 && codecs[names[0]].encode != nil {
		err = codecs[names[0]].encode(base, baseSize, target, w, opts...)
	} else {
		_, err = io.Copy(w, target)
	}
	if err != nil {
		return err
	}
	for i := len(closers) - 1; i >= 0; i-- {
		if err := closers[i].Close(); err != nil {
			return err
		}
	}
	return nil
}
