package verify

import (
	"crypto/sha512"
	"hash"
	"hash/crc32"
	"hash/crc64"
)

// Unregistered is the status of an algorithm hdig computes that is not in
// the RFC 9530 registry: a user may name it (--expect, --accept, sum -a)
// and origins send it in fields of their own (x-amz-checksum-crc64nvme),
// but it is never sent in Want-Repr-Digest or Want-Content-Digest.
const Unregistered Status = "unregistered"

// Extra lists the algorithms hdig computes beyond the registry: sha-384
// (Subresource Integrity), CRC-32 (IEEE, Amazon S3's x-amz-checksum-crc32)
// and CRC-64/NVME (x-amz-checksum-crc64nvme). Their Sum is the big-endian
// digest value, as the services encode it.
var Extra = []Algorithm{
	{Key: "sha-384", Status: Unregistered, Size: sha512.Size384, New: sha512.New384},
	{Key: "crc32", Status: Unregistered, Size: 4, New: func() hash.Hash { return crc32.NewIEEE() }, Inline: true},
	{Key: "crc64nvme", Status: Unregistered, Size: 8, New: func() hash.Hash { return crc64.New(crc64NVME) }},
}

// crc64NVME is CRC-64/NVME (poly 0xAD93D23594C93659, reflected
// 0x9A6C9329AC4BC9B5, init and xorout all ones, as hash/crc64 does): the
// checksum Amazon S3 names crc64nvme.
var crc64NVME = crc64.MakeTable(0x9A6C9329AC4BC9B5)

// All is every algorithm hdig computes: the registry, then Extra.
var All = append(append([]Algorithm{}, Algorithms...), Extra...)

// Find returns the algorithm with the given key, registered or Extra. Use
// Lookup where only the registry is allowed (Want-*, RFC 9530 fields sent).
func Find(key string) (Algorithm, bool) {
	for _, a := range All {
		if a.Key == key {
			return a, true
		}
	}
	return Algorithm{}, false
}

// AllKeys returns the keys of All.
func AllKeys() []string {
	keys := make([]string, len(All))
	for i, a := range All {
		keys[i] = a.Key
	}
	return keys
}
