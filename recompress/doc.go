// Package recompress expands the zlib streams inside a file into the bytes
// they hold, wherever Go's compress/zlib at some level writes back exactly
// the same stream, and contracts that expanded form back into the file.
//
// A delta between two compressed streams is as large as the later one:
// one changed byte changes every compressed byte after it. A delta between
// the expanded forms of two versions sees the data instead: between two
// builds of a Go program (whose linker compresses the DWARF sections with
// zlib at level 1), a third of the size.
//
// The expanded form is "HDZX" 0x01, then segments, then 0x02:
//
//	0x00 n:uvarint bytes[n]                      raw bytes, copied as they are
//	0x01 level:byte raw:uvarint packed:uvarint    a zlib stream: Go's zlib writer
//	     crc32:4 bytes[raw]                      at level-2, fed the raw bytes,
//	                                             writes packed bytes with this
//	                                             IEEE CRC-32 (big-endian)
//
// Expand decides deterministically from the bytes alone, so that two
// parties expanding the same base get the same expanded form; a change to
// that decision is a new format (and a new instance-manipulation name).
package recompress

import (
	"errors"
	"fmt"
)

// Bounds of what is expanded. A stream is expanded only when it is at
// least MinPacked bytes, inflates to at most MaxRatio times its size and
// MaxRaw bytes, and Go reproduces it; Contract refuses any other.
const (
	MinPacked = 512
	MaxRatio  = 16
	// MaxRaw bounds a stream's inflated bytes, and so the bytes Contract
	// compresses before it can tell a segment does not match: a hostile
	// expanded form costs at most that much work before it fails.
	MaxRaw = 64 << 20
	// probeBudget bounds the bytes read and inflated while probing, as a
	// multiple of the file's size (plus probeSlack): candidates that
	// inflate but are not reproduced cost no more than this.
	probeBudget = 8
	probeSlack  = 4 << 20
)

// Segment tags and the magic of the expanded form.
const (
	tagRaw  = 0x00
	tagZlib = 0x01
	tagEnd  = 0x02
)

var magic = []byte("HDZX\x01")

// ErrCorrupt is wrapped by Contract's errors about an expanded form that
// is malformed or that does not recompress to the stream it names.
var ErrCorrupt = errors.New("corrupt expanded form")

func corruptf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
}

// levels are the zlib levels whose header's second byte is b1, in the
// order tried; nil if no level expanded starts so. Levels 7 to 9 (header
// 78 DA) are not expanded: on data made for it, Go's writer at level 9
// compresses about 1 MB/s, and Contract must not be made to spend that.
func levels(b1 byte) []int {
	switch b1 {
	case 0x01:
		return []int{1, 0, -2}
	case 0x5e:
		return []int{2, 3, 4, 5}
	case 0x9c:
		return []int{6}
	}
	return nil
}

// Stats says what Expand found.
type Stats struct {
	Streams int   // zlib streams expanded
	Packed  int64 // their compressed bytes
	Raw     int64 // their inflated bytes
	Probed  int64 // bytes inflated while looking (the work done)
}
