package server

import (
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression settings. The output is deterministic for a given library
// version (gzip MTIME is 0, one zstd encoder goroutine), so a variant's
// ETag and Repr-Digest are stable across restarts.
const (
	gzipLevel   = gzip.DefaultCompression
	brotliLevel = 6
)

// compress writes the enc-encoded form of src to dst.
func compress(dst io.Writer, src io.Reader, enc string) error {
	var w io.WriteCloser
	switch enc {
	case "gzip":
		gz, err := gzip.NewWriterLevel(dst, gzipLevel)
		if err != nil {
			return err
		}
		w = gz
	case "br":
		w = brotli.NewWriterLevel(dst, brotliLevel)
	case "zstd":
		zw, err := zstd.NewWriter(dst, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			return err
		}
		w = zw
	default:
		return fmt.Errorf("unsupported content coding %q", enc)
	}
	if _, err := io.Copy(w, src); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
