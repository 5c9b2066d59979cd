package dictionary

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/zstd"
	brrr "github.com/molecule-man/go-brrr"
)

// Encoder encodes bodies against one dictionary in one coding. Building it
// is the costly part (the zstd encoder's tables, Brotli's prepared
// dictionary), so a server keeps one per dictionary and coding. Encode may
// be called from several goroutines at once.
type Encoder struct {
	coding string
	hash   Hash
	dict   []byte
	single bool // the zstd encoder writes single-segment frames
	zstd   *zstd.Encoder
	brotli []*brrr.PreparedDictionary
}

// NewEncoder prepares an encoder for coding (dcb or dcz) with dict.
// sizeHint is the largest body expected; for dcz it sizes the window
// (within the RFC 9842 limit), larger bodies are still encoded correctly.
func NewEncoder(coding string, dict []byte, sizeHint int) (*Encoder, error) {
	if _, err := magicOf(coding); err != nil {
		return nil, err
	}
	if len(dict) == 0 {
		return nil, fmt.Errorf("%s: want a dictionary, got 0 bytes", coding)
	}
	e := &Encoder{coding: coding, hash: HashOf(dict), dict: dict}
	var err error
	if coding == CodingDCZ {
		e.zstd, err = newZstdEncoder(dict, sizeHint)
		_, e.single = dczFrame(len(dict), sizeHint)
	} else {
		e.brotli, err = prepareDCB(dict)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Coding is the content coding the encoder produces.
func (e *Encoder) Coding() string { return e.coding }

// Hash is the SHA-256 of the dictionary, as the header names it.
func (e *Encoder) Hash() Hash { return e.hash }

// Encode returns the header followed by data compressed with the dictionary.
func (e *Encoder) Encode(data []byte) ([]byte, error) {
	hdr, _ := AppendHeader(make([]byte, 0, HeaderLen(e.coding)+len(data)/2+64), e.coding, e.hash)
	if e.zstd != nil {
		return e.encodeZstd(data, hdr)
	}
	buf := bytes.NewBuffer(hdr)
	if err := encodeBrotli(buf, data, e.brotli); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeZstd appends data's zstd frame to hdr. A single-segment frame
// declares a window of len(data): a body beyond the RFC 9842 limit gets a
// one-off encoder with a window within it.
func (e *Encoder) encodeZstd(data, hdr []byte) ([]byte, error) {
	if !e.single || int64(len(data)) <= DCZWindowLimit(len(e.dict)) {
		return e.zstd.EncodeAll(data, hdr), nil
	}
	z, err := newZstdEncoder(e.dict, len(data))
	if err != nil {
		return nil, err
	}
	defer z.Close()
	return z.EncodeAll(data, hdr), nil
}

// Close releases the encoder's resources.
func (e *Encoder) Close() {
	if e.zstd != nil {
		e.zstd.Close()
	}
}

// Encode encodes data with dict in coding (dcb or dcz).
func Encode(coding string, data, dict []byte) ([]byte, error) {
	e, err := NewEncoder(coding, dict, len(data))
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return e.Encode(data)
}
