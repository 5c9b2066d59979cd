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

func encodeBrotli(dst *bytes.Buffer, data []byte, pd *brrr.PreparedDictionary) error {
	w, err := brrr.NewWriterOptions(dst, dcbLevel, brrr.WriterOptions{
		Dictionaries: []*brrr.PreparedDictionary{pd},
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
