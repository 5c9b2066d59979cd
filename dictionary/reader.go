package dictionary

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	brrr "github.com/molecule-man/go-brrr"
)

// zstdMaxFrameHeader is the largest zstd frame header: magic (4), frame
// header descriptor (1), window descriptor (1), dictionary ID (4) and
// frame content size (8).
const zstdMaxFrameHeader = 18

// NewReader returns a streaming decoder of a dcb or dcz body read from r:
// it reads the 36- or 40-byte header, checks that it names dict (an error
// wrapping ErrWrongDictionary otherwise) and then decodes as bytes are
// read, so memory is bounded by the window (16 MiB for dcb, the RFC 9842
// dcz limit for dict) and the dictionary, not by the body. Reading more
// than lim.MaxOutput decoded bytes fails with ErrTooLarge; lim.MaxRatio is
// not applied (the body's size is not known in advance: the caller bounds
// the ratio of what it has read). Close releases the decoder.
func NewReader(coding string, r io.Reader, dict []byte, lim Limits) (io.ReadCloser, error) {
	n := HeaderLen(coding)
	if n == 0 {
		_, err := magicOf(coding)
		return nil, err
	}
	hdr := make([]byte, n)
	if got, err := io.ReadFull(r, hdr); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF { // the body ended; any other error is the reader's, kept
			return nil, fmt.Errorf("%s: want a %d-byte header, got %d bytes", coding, n, got)
		}
		return nil, fmt.Errorf("%s: reading the header: %w", coding, err)
	}
	h, _, err := SplitHeader(coding, hdr)
	if err != nil {
		return nil, err
	}
	if err := checkHash(coding, h, dict); err != nil {
		return nil, err
	}
	max := lim.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	var dec io.Reader
	var closer func()
	if coding == CodingDCZ {
		dec, closer, err = newZstdStream(r, dict, max)
	} else {
		dec, closer, err = newBrotliStream(r, dict)
	}
	if err != nil {
		return nil, err
	}
	return &boundedReader{coding: coding, r: dec, left: max, close: closer}, nil
}

// newZstdStream decodes one zstd stream with dict as raw content, after
// checking that its first frame declares a window within the RFC 9842
// limit (a single-segment frame's content size is its window).
func newZstdStream(r io.Reader, dict []byte, max int64) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 4096)
	head, err := br.Peek(zstdMaxFrameHeader)
	if err != nil && len(head) == 0 {
		return nil, nil, fmt.Errorf("dcz: no zstd frame after the header: %v", err)
	}
	window := uint64(DCZWindowLimit(len(dict)))
	if err := checkFrameWindow(head, window); err != nil {
		return nil, nil, err
	}
	dec, err := zstd.NewReader(br,
		zstd.WithDecoderDictRaw(0, dict),
		zstd.WithDecoderMaxWindow(window),
		zstd.WithDecoderMaxMemory(uint64(max)+1),
		zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, nil, fmt.Errorf("dcz: %v", err)
	}
	return dec, dec.Close, nil
}

// newBrotliStream decodes a Brotli stream with dict attached as a prefix
// dictionary. Brotli windows are at most 16 MiB.
func newBrotliStream(r io.Reader, dict []byte) (io.Reader, func(), error) {
	d, err := brrr.NewReaderOptions(r, brrr.ReaderOptions{Dictionaries: [][]byte{dict}})
	if err != nil {
		return nil, nil, fmt.Errorf("dcb: %v", err)
	}
	return d, func() { d.Close() }, nil
}

// boundedReader fails with ErrTooLarge once more than left bytes come out
// of the decoder, and names the coding in the decoder's errors.
type boundedReader struct {
	coding string
	r      io.Reader
	left   int64
	close  func()
	err    error
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	if int64(n) > b.left {
		b.err = fmt.Errorf("%s: %w: want at most %d bytes, got more", b.coding, ErrTooLarge, b.left)
		return int(b.left), b.err
	}
	b.left -= int64(n)
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		b.err = fmt.Errorf("%s: %w", b.coding, ErrTooLarge)
	case err != nil && err != io.EOF:
		b.err = fmt.Errorf("%s: %w", b.coding, err)
	case err == io.EOF:
		b.err = io.EOF
	}
	return n, b.err
}

// Close releases the decoder.
func (b *boundedReader) Close() error {
	if b.close != nil {
		b.close()
		b.close = nil
	}
	return nil
}
