package verify

import (
	"encoding/binary"
	"errors"
	"hash"
)

// unixSum is the BSD sum checksum (GNU `sum`, `sum -r`): rotate right by one
// then add each byte, modulo 2^16. Its digest value is 2 bytes, big-endian.
type unixSum struct{ s uint16 }

func newUnixSum() hash.Hash { return &unixSum{} }

func (u *unixSum) Write(p []byte) (int, error) {
	s := u.s
	for _, b := range p {
		s = (s >> 1) | (s << 15)
		s += uint16(b)
	}
	u.s = s
	return len(p), nil
}

func (u *unixSum) Sum(b []byte) []byte { return binary.BigEndian.AppendUint16(b, u.s) }
func (u *unixSum) Reset()              { u.s = 0 }
func (u *unixSum) Size() int           { return 2 }
func (u *unixSum) BlockSize() int      { return 1 }

// unixCksum is the POSIX cksum CRC: polynomial 0x04C11DB7, MSB first, initial
// value 0, the length appended LSB first in as few bytes as it needs, final
// complement. Its digest value is 4 bytes, big-endian.
type unixCksum struct {
	crc uint32
	n   uint64
}

var cksumTable = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func newUnixCksum() hash.Hash { return &unixCksum{} }

func (u *unixCksum) Write(p []byte) (int, error) {
	c := u.crc
	for _, b := range p {
		c = c<<8 ^ cksumTable[byte(c>>24)^b]
	}
	u.crc = c
	u.n += uint64(len(p))
	return len(p), nil
}

func (u *unixCksum) Sum(b []byte) []byte {
	c := u.crc
	for n := u.n; n != 0; n >>= 8 {
		c = c<<8 ^ cksumTable[byte(c>>24)^byte(n)]
	}
	return binary.BigEndian.AppendUint32(b, ^c)
}

func (u *unixCksum) Reset()         { *u = unixCksum{} }
func (u *unixCksum) Size() int      { return 4 }
func (u *unixCksum) BlockSize() int { return 1 }

// Saved states (encoding.BinaryMarshaler), as the stdlib hashes have them:
// a magic string naming the algorithm and version, then the fields.
const (
	unixSumMagic   = "hdig-sum\x01"
	unixCksumMagic = "hdig-cksum\x01"
)

func (u *unixSum) MarshalBinary() ([]byte, error) {
	return binary.BigEndian.AppendUint16([]byte(unixSumMagic), u.s), nil
}

func (u *unixSum) UnmarshalBinary(b []byte) error {
	if len(b) != len(unixSumMagic)+2 || string(b[:len(unixSumMagic)]) != unixSumMagic {
		return errors.New("unixsum: invalid hash state")
	}
	u.s = binary.BigEndian.Uint16(b[len(unixSumMagic):])
	return nil
}

func (u *unixCksum) MarshalBinary() ([]byte, error) {
	b := binary.BigEndian.AppendUint32([]byte(unixCksumMagic), u.crc)
	return binary.BigEndian.AppendUint64(b, u.n), nil
}

func (u *unixCksum) UnmarshalBinary(b []byte) error {
	if len(b) != len(unixCksumMagic)+12 || string(b[:len(unixCksumMagic)]) != unixCksumMagic {
		return errors.New("unixcksum: invalid hash state")
	}
	b = b[len(unixCksumMagic):]
	u.crc = binary.BigEndian.Uint32(b)
	u.n = binary.BigEndian.Uint64(b[4:])
	return nil
}
