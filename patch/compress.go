package patch

import (
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// MaxZstdWindow bounds the window, and so the memory, a zstd stream may
// ask of its decoder.
const MaxZstdWindow = 128 << 20

// strongUpTo is the largest input compressed with the strongest settings
// (made once, sent many times); a larger one, or one of unknown size,
// gets faster ones.
const strongUpTo = 4 << 20

// newCompressor returns a writer compressing into w by the compression
// name (gzip, deflate, br, zstd); size is the input's length, or -1 when
// unknown. "br" and "zstd" are instance manipulations by the names of
// their content codings (RFC 7932, RFC 8878), used as RFC 3229 §10.7.3
// uses gzip: "IM: vcdiff, br" is a vcdiff delta, then compressed.
func newCompressor(name string, w io.Writer, size int64) (io.WriteCloser, error) {
	strong := size >= 0 && size <= strongUpTo
	switch name {
	case "gzip":
		return gzip.NewWriter(w), nil
	case "deflate":
		return zlib.NewWriter(w), nil
	case "br":
		q := 7
		if strong {
			q = brotli.BestCompression
		}
		return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: q, LGWin: 24}), nil
	case "zstd":
		lvl := zstd.SpeedBetterCompression
		if strong {
			lvl = zstd.SpeedBestCompression
		}
		return zstd.NewWriter(w, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(8<<20))
	}
	return nil, fmt.Errorf("%w: compression %q", ErrUnsupported, name)
}

// newDecompressor returns a reader undoing the compression name; a zstd
// window over MaxZstdWindow is refused, a brotli one is at most 16 MiB.
func newDecompressor(name string, r io.Reader) (io.ReadCloser, error) {
	switch name {
	case "gzip":
		return gzip.NewReader(r)
	case "deflate":
		return zlib.NewReader(r)
	case "br":
		return io.NopCloser(brotli.NewReader(r)), nil
	case "zstd":
		zr, err := zstd.NewReader(r, zstd.WithDecoderMaxWindow(MaxZstdWindow), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return zr.IOReadCloser(), nil
	}
	return nil, fmt.Errorf("%w: compression %q", ErrUnsupported, name)
}

// Compress writes src compressed by the compression instance manipulation
// name to w: the strongest settings when size (src's length, -1 if
// unknown) is at most 4 MiB, faster ones above.
func Compress(w io.Writer, src io.Reader, name string, size int64) error {
	zw, err := newCompressor(name, w, size)
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, src); err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}
