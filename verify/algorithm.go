// Package verify implements the RFC 9530 digest algorithms, the parsing and
// formatting of the Integrity fields (Repr-Digest, Content-Digest) and the
// Integrity preference fields (Want-Repr-Digest, Want-Content-Digest), the
// legacy RFC 3230 Digest field, and streaming verification with verdicts.
package verify

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"hash/adler32"
	"hash/crc32"
	"sort"
	"strings"
)

// Status is an algorithm's status in the IANA "Hash Algorithms for HTTP
// Digest Fields" registry (RFC 9530 §7.2).
type Status string

// Registry statuses.
const (
	Active     Status = "active"
	Deprecated Status = "deprecated"
)

// Algorithm is one registered hashing algorithm.
type Algorithm struct {
	// Key is the Structured Field dictionary key, e.g. "sha-256".
	Key string
	// Status is Active or Deprecated.
	Status Status
	// Size is the length in bytes of the digest value.
	Size int
	// New returns a fresh hash whose Sum is exactly the RFC 9530 digest
	// value bytes (rfc-notes §1.5): big-endian for the checksums.
	New func() hash.Hash
	// Inline says the algorithm is cheaper to compute where the bytes are
	// than to hand them to another goroutine (a Hasher's pipeline): crc32c
	// runs in hardware at memory speed, so a copy into the pipeline would
	// cost as much as the hash.
	Inline bool
}

// Algorithms lists the eight registered algorithms, Active first, in the
// order of the registry table.
var Algorithms = []Algorithm{
	{Key: "sha-512", Status: Active, Size: sha512.Size, New: sha512.New},
	{Key: "sha-256", Status: Active, Size: sha256.Size, New: sha256.New},
	{Key: "md5", Status: Deprecated, Size: md5.Size, New: md5.New},
	{Key: "sha", Status: Deprecated, Size: sha1.Size, New: sha1.New},
	{Key: "unixsum", Status: Deprecated, Size: 2, New: newUnixSum},
	{Key: "unixcksum", Status: Deprecated, Size: 4, New: newUnixCksum},
	{Key: "adler", Status: Deprecated, Size: 4, New: func() hash.Hash { return adler32.New() }},
	{Key: "crc32c", Status: Deprecated, Size: 4, New: func() hash.Hash { return crc32.New(castagnoli) }, Inline: true},
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Lookup returns the registered algorithm with the given key.
func Lookup(key string) (Algorithm, bool) {
	for _, a := range Algorithms {
		if a.Key == key {
			return a, true
		}
	}
	return Algorithm{}, false
}

// Keys returns the registered keys in registry order.
func Keys() []string {
	keys := make([]string, len(Algorithms))
	for i, a := range Algorithms {
		keys[i] = a.Key
	}
	return keys
}

// ParseList parses a comma-separated list of algorithm keys such as
// "sha-256,sha-512", registered or Extra. Unknown keys are an error that
// names them.
func ParseList(s string) ([]Algorithm, error) {
	var out []Algorithm
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		k := strings.ToLower(strings.TrimSpace(f))
		if k == "" {
			continue
		}
		a, ok := Find(k)
		if !ok {
			return nil, fmt.Errorf("unknown digest algorithm %q (known: %s)", k, strings.Join(AllKeys(), ", "))
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty digest algorithm list %q", s)
	}
	return out, nil
}

// SortedKeys returns the keys of m in registry order; unknown keys last, sorted.
func SortedKeys[V any](m map[string]V) []string {
	rank := map[string]int{}
	for i, a := range All {
		rank[a.Key] = i
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, oki := rank[keys[i]]
		rj, okj := rank[keys[j]]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		}
		return keys[i] < keys[j]
	})
	return keys
}
