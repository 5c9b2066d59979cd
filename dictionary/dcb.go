package dictionary

import (
	"bytes"
	"fmt"

	brrr "github.com/molecule-man/go-brrr"
)

// dcbLGWin is log2 of the Brotli window: RFC 9842 §4 caps it at 16 MB,
// which is also Brotli's largest standard window (RFC 7932 §9.1).
const dcbLGWin = 24

// dcbLevel is the Brotli quality used for dcb; attached dictionaries need
// quality 2 or more.
const dcbLevel = brrr.BestCompression

// EncodeDCB returns data as a dcb body: the 36-byte header naming dict's
// SHA-256, then a Brotli stream with dict attached as a prefix (compound)
// dictionary.
func EncodeDCB(data, dict []byte) ([]byte, error) {
	e, err := NewEncoder(CodingDCB, dict, len(data))
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return e.Encode(data)
}

// The encoder's index of each attached dictionary chunk is bounded, so a
// dictionary of up to dcbChunkedMax bytes is attached as chunks of dcbChunk
// bytes (at most dcbMaxChunks, Brotli's limit): more of its matches are
// found (about 1% smaller on two releases of a Go package's source, and
// no gain worth the time on larger dictionaries, which stay whole). The
// stream addresses the chunks as one concatenation, so a decoder attaches
// the dictionary whole, as RFC 9842 §4 has it.
const (
	dcbChunk      = 64 << 10
	dcbChunkedMax = 1 << 20
	dcbMaxChunks  = 15
)

// prepareDCB prepares dict for the Brotli encoder, in chunks when small.
func prepareDCB(dict []byte) ([]*brrr.PreparedDictionary, error) {
	step := len(dict)
	if len(dict) <= dcbChunkedMax {
		step = max(dcbChunk, (len(dict)+dcbMaxChunks-1)/dcbMaxChunks)
	}
	var pds []*brrr.PreparedDictionary
	for i := 0; i < len(dict); i += step {
		pd, err := brrr.PrepareDictionary(dict[i:min(i+step, len(dict))])
		if err != nil {
			return nil, fmt.Errorf("dcb: %v", err)
		}
		pds = append(pds, pd)
	}
	return pds, nil
}

func encodeBrotli(dst *bytes.Buffer, data []byte, pds []*brrr.PreparedDictionary) error {
	w, err := brrr.NewWriterOptions(dst, dcbLevel, brrr.WriterOptions{
		Dictionaries: pds,
		LGWin:        dcbLGWin,
		SizeHint:     uint(len(data)),
	})
	if err != nil {
		return fmt.Errorf("dcb: %v", err)
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("dcb: %v", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("dcb: %v", err)
	}
	return nil
}

// DecodeDCB checks body's header names dict and decodes the Brotli stream
// after it with dict attached, stopping at lim. Brotli windows are at most
// 16 MiB, so the decoder's memory is bounded by the window, the dictionary
// and the output cap.
func DecodeDCB(body, dict []byte, lim Limits) ([]byte, error) {
	h, stream, err := SplitHeader(CodingDCB, body)
	if err != nil {
		return nil, err
	}
	if err := checkHash(CodingDCB, h, dict); err != nil {
		return nil, err
	}
	r, err := brrr.NewReaderOptions(bytes.NewReader(stream), brrr.ReaderOptions{Dictionaries: [][]byte{dict}})
	if err != nil {
		return nil, fmt.Errorf("dcb: %v", err)
	}
	defer r.Close()
	return readBounded(CodingDCB, r, lim.cap(len(body), len(dict)))
}

// Decode decodes body, encoded in coding (dcb or dcz) with dict.
func Decode(coding string, body, dict []byte, lim Limits) ([]byte, error) {
	switch coding {
	case CodingDCB:
		return DecodeDCB(body, dict, lim)
	case CodingDCZ:
		return DecodeDCZ(body, dict, lim)
	}
	_, err := magicOf(coding)
	return nil, err
}
