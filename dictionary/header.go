package dictionary

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
)

// Content-coding names (RFC 9842 §4, §5).
const (
	CodingDCB = "dcb"
	CodingDCZ = "dcz"
)

// Header magics. The dcz one is a Zstandard skippable frame (magic
// 0x184D2A5E, length 32) that carries the hash, so stock zstd skips it.
var (
	magicDCB = []byte{0xFF, 0x44, 0x43, 0x42}
	magicDCZ = []byte{0x5E, 0x2A, 0x4D, 0x18, 0x20, 0x00, 0x00, 0x00}
)

// HeaderLen returns the header length of coding: 36 for dcb, 40 for dcz,
// 0 for anything else.
func HeaderLen(coding string) int {
	switch coding {
	case CodingDCB:
		return len(magicDCB) + len(Hash{})
	case CodingDCZ:
		return len(magicDCZ) + len(Hash{})
	}
	return 0
}

func magicOf(coding string) ([]byte, error) {
	switch coding {
	case CodingDCB:
		return magicDCB, nil
	case CodingDCZ:
		return magicDCZ, nil
	}
	return nil, fmt.Errorf("content coding: want %s or %s, got %q", CodingDCB, CodingDCZ, coding)
}

// ErrWrongDictionary is returned when a header's hash does not name the
// dictionary the caller supplied.
var ErrWrongDictionary = errors.New("dictionary hash mismatch")

// SplitHeader checks body's magic for coding and returns the dictionary
// hash it names and the compressed stream after the header.
func SplitHeader(coding string, body []byte) (Hash, []byte, error) {
	magic, err := magicOf(coding)
	if err != nil {
		return Hash{}, nil, err
	}
	n := HeaderLen(coding)
	if len(body) < n {
		return Hash{}, nil, fmt.Errorf("%s: want a %d-byte header, got %d bytes", coding, n, len(body))
	}
	if !bytes.Equal(body[:len(magic)], magic) {
		return Hash{}, nil, fmt.Errorf("%s: want magic %x, got %x", coding, magic, body[:len(magic)])
	}
	var h Hash
	copy(h[:], body[len(magic):n])
	return h, body[n:], nil
}

// AppendHeader appends the header of coding naming dictionary hash h.
func AppendHeader(dst []byte, coding string, h Hash) ([]byte, error) {
	magic, err := magicOf(coding)
	if err != nil {
		return nil, err
	}
	return append(append(dst, magic...), h[:]...), nil
}

func checkHash(coding string, got Hash, dict []byte) error {
	if want := HashOf(dict); got != want {
		return fmt.Errorf("%s: %w: header names sha-256 %s, want %s (the dictionary given)",
			coding, ErrWrongDictionary, hex.EncodeToString(got[:]), hex.EncodeToString(want[:]))
	}
	return nil
}
