package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/patch"
	"github.com/klauspost/compress/zstd"
)

// maxZstdWindow bounds the memory a zstd stream may ask for.
const maxZstdWindow = patch.MaxZstdWindow

// maxCodings bounds the Content-Encoding list undone (curl stops at 5):
// each entry costs a decoder, and no origin stacks more than two.
const maxCodings = 5

// dictDecoder returns a reader that undoes the Content-Encoding list in
// reverse order (RFC 9110 §8.4), with dict (when not nil) for dcb and dcz
// (RFC 9842): their header must name it; lim bounds their output. Unknown
// codings are an error naming them.
func dictDecoder(r io.Reader, contentEncoding string, dict []byte, lim dictionary.Limits) (io.Reader, func(), error) {
	var closers []func()
	done := func() {
		for _, c := range closers {
			c()
		}
	}
	codings := strings.Split(contentEncoding, ",")
	if n := countCodings(codings); n > maxCodings {
		return nil, nil, fmt.Errorf("Content-Encoding lists %d codings: hdig undoes at most %d", n, maxCodings)
	}
	for i := len(codings) - 1; i >= 0; i-- {
		c := strings.ToLower(strings.TrimSpace(codings[i]))
		switch c {
		case "", "identity":
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(r)
			if err != nil {
				done()
				return nil, nil, fmt.Errorf("gzip body: %w", err)
			}
			closers = append(closers, func() { zr.Close() })
			r = zr
		case "deflate":
			r = newDeflateReader(r)
		case "br":
			r = brotli.NewReader(r)
		case "zstd":
			zr, err := zstd.NewReader(r, zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderConcurrency(1))
			if err != nil {
				done()
				return nil, nil, fmt.Errorf("zstd body: %w", err)
			}
			closers = append(closers, zr.Close)
			r = zr
		case dictionary.CodingDCB, dictionary.CodingDCZ:
			if dict == nil {
				done()
				return nil, nil, fmt.Errorf("Content-Encoding %q, and no dictionary was offered", c)
			}
			dr, err := dictionary.NewReader(c, r, dict, lim)
			if err != nil {
				done()
				return nil, nil, err
			}
			closers = append(closers, func() { dr.Close() })
			r = dr
		default:
			done()
			return nil, nil, fmt.Errorf("%w %q", ErrUnsupportedCoding, c)
		}
	}
	return r, done, nil
}

// newDeflateReader reads HTTP "deflate": the zlib format (RFC 1950), with
// the raw deflate format some servers send by mistake as a fallback.
func newDeflateReader(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	hdr, _ := br.Peek(2)
	if len(hdr) == 2 && hdr[0]&0x0f == 8 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
		zr, err := zlib.NewReader(br)
		if err == nil {
			return zr
		}
	}
	return flate.NewReader(br)
}

// countCodings counts the entries that are not empty or identity.
func countCodings(codings []string) int {
	n := 0
	for _, c := range codings {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
			n++
		}
	}
	return n
}

// Decoder undoes the content codings of a Content-Encoding field value
// over r, as hdig get --compressed does (gzip, deflate, br, zstd; dcb and
// dcz need a dictionary and fail; a coding it does not know is
// ErrUnsupportedCoding); done releases the decoders. hdig check
// uses it to compare an encoded variant's bytes with the identity's.
func Decoder(r io.Reader, contentEncoding string) (dec io.Reader, done func(), err error) {
	return dictDecoder(r, contentEncoding, nil, dictionary.Limits{})
}
