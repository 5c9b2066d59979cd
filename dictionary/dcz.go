package dictionary

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

const (
	dczMinWindow = 8 << 20   // RFC 9842 §5: at least 8 MB ...
	dczMaxWindow = 128 << 20 // ... or 1.25 x the dictionary, up to 128 MB
)

// DCZWindowLimit is the window RFC 9842 §5 requires a client to accept
// for a dictionary of dictLen bytes: max(8 MiB, 1.25 x dictLen), at most
// 128 MiB.
func DCZWindowLimit(dictLen int) int64 {
	w := int64(dictLen) + int64(dictLen)/4
	if w < dczMinWindow {
		w = dczMinWindow
	}
	if w > dczMaxWindow {
		w = dczMaxWindow
	}
	return w
}

// dczFrame says how to encode dataLen bytes against a dictionary of
// dictLen. zstd frame headers state a power-of-two window (the encoder
// writes no eighths), or, in a single-segment frame, the content size. So
// when the body fits the RFC 9842 limit the frame is single-segment: it
// declares a window of dataLen and the encoder may look back over the whole
// dictionary (the search window is the smallest power of two holding both,
// up to 128 MiB). Otherwise the window is the largest power of two within
// the limit.
func dczFrame(dictLen, dataLen int) (window int, single bool) {
	limit := DCZWindowLimit(dictLen)
	if int64(dataLen) <= limit {
		w := int64(zstd.MinWindowSize)
		for w < dczMaxWindow && w < int64(dictLen)+int64(dataLen) {
			w *= 2
		}
		return int(w), true
	}
	w := int64(dczMinWindow)
	for w*2 <= limit {
		w *= 2
	}
	return int(w), false
}

// EncodeDCZ returns data as a dcz body: the 40-byte header naming dict's
// SHA-256, then one zstd frame compressed with dict as raw content.
func EncodeDCZ(data, dict []byte) ([]byte, error) {
	e, err := NewEncoder(CodingDCZ, dict, len(data))
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return e.Encode(data)
}

func newZstdEncoder(dict []byte, sizeHint int) (*zstd.Encoder, error) {
	window, single := dczFrame(len(dict), sizeHint)
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderDictRaw(0, dict),
		zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithWindowSize(window),
		zstd.WithSingleSegment(single),
		zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("dcz: %v", err)
	}
	return enc, nil
}

// DecodeDCZ checks body's header names dict and decodes the zstd frame
// after it, refusing windows beyond the RFC 9842 limit and output beyond lim.
func DecodeDCZ(body, dict []byte, lim Limits) ([]byte, error) {
	h, stream, err := SplitHeader(CodingDCZ, body)
	if err != nil {
		return nil, err
	}
	if err := checkHash(CodingDCZ, h, dict); err != nil {
		return nil, err
	}
	max := lim.cap(len(body), len(dict))
	window := uint64(DCZWindowLimit(len(dict)))
	if err := checkFrameWindow(stream, window); err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(bytes.NewReader(stream),
		zstd.WithDecoderDictRaw(0, dict),
		zstd.WithDecoderMaxWindow(window),
		zstd.WithDecoderMaxMemory(uint64(max)+1),
		zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("dcz: %v", err)
	}
	defer dec.Close()
	out, err := readBounded(CodingDCZ, dec, max)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return nil, fmt.Errorf("%s: %w: want at most %d bytes, got more", CodingDCZ, ErrTooLarge, max)
	}
	return out, err
}

// FrameWindow is the window a zstd frame header declares: its window
// descriptor, or, in a single-segment frame, its content size.
func FrameWindow(frame []byte) (uint64, error) {
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		return 0, fmt.Errorf("dcz: zstd frame header: %v", err)
	}
	if h.SingleSegment {
		return h.FrameContentSize, nil
	}
	return h.WindowSize, nil
}

// checkFrameWindow refuses a first frame whose window exceeds limit (RFC
// 9842 §5 lets a client treat it as an error). The zstd decoder checks the
// window descriptor of every frame itself, but not a single-segment frame's
// content size.
func checkFrameWindow(stream []byte, limit uint64) error {
	w, err := FrameWindow(stream)
	if err != nil {
		return err
	}
	if w > limit {
		return fmt.Errorf("dcz: frame window %d bytes exceeds the RFC 9842 limit of %d for this dictionary", w, limit)
	}
	return nil
}
