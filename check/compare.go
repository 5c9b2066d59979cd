package check

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hdig/hdig/verify"
)

// outcome is the comparison of a field's members with computed digests.
type outcome struct {
	matched []string        // algorithms whose value matched
	wrong   []verify.Digest // members whose value did not match
	unknown []string        // members with nothing to compare them to
}

// compare checks every member of f against the computed digests. A value
// of the wrong length is a mismatch like any other.
func compare(f verify.DigestField, sums []verify.Digest) outcome {
	var o outcome
	for _, d := range f.Digests {
		v, ok := lookup(sums, d.Algorithm)
		switch {
		case !ok:
			o.unknown = append(o.unknown, d.Algorithm)
		case bytes.Equal(v, d.Value):
			o.matched = append(o.matched, d.Algorithm)
		default:
			o.wrong = append(o.wrong, d)
		}
	}
	return o
}

// lookup returns the value for an algorithm.
func lookup(ds []verify.Digest, alg string) ([]byte, bool) {
	for _, d := range ds {
		if d.Algorithm == alg {
			return d.Value, true
		}
	}
	return nil, false
}

// equalIn reports whether d has the same value as the member of the same
// algorithm in ds.
func equalIn(d verify.Digest, ds []verify.Digest) bool {
	v, ok := lookup(ds, d.Algorithm)
	return ok && bytes.Equal(v, d.Value)
}

// allEqualIn reports whether every member of f is found, equal, in ds.
func allEqualIn(f verify.DigestField, ds []verify.Digest) bool {
	for _, d := range f.Digests {
		if !equalIn(d, ds) {
			return false
		}
	}
	return len(f.Digests) > 0
}

// member formats one member as it appears in a field: sha-256=:…:.
func member(d verify.Digest) string { return verify.FormatDigests([]verify.Digest{d}) }

// wantOf formats the computed values for the algorithms of the given
// members: what the field should have said.
func wantOf(wrong []verify.Digest, sums []verify.Digest) string {
	var want []verify.Digest
	for _, d := range wrong {
		if v, ok := lookup(sums, d.Algorithm); ok {
			want = append(want, verify.Digest{Algorithm: d.Algorithm, Value: v})
		}
	}
	return verify.FormatDigests(want)
}

// keysOf lists the algorithms of a field: "sha-256, sha-512".
func keysOf(f verify.DigestField) string {
	keys := make([]string, len(f.Digests))
	for i, d := range f.Digests {
		keys[i] = d.Algorithm
	}
	return strings.Join(keys, ", ")
}

// bytesOf describes a byte count: "19 bytes".
func bytesOf(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// preferred returns the registered algorithms of the highest non-zero
// weight in prefs.
func preferred(prefs []verify.Pref) []string {
	best := 0
	for _, p := range prefs {
		if _, ok := verify.Lookup(p.Algorithm); ok && p.Weight > best {
			best = p.Weight
		}
	}
	var out []string
	for _, p := range prefs {
		if _, ok := verify.Lookup(p.Algorithm); ok && p.Weight == best && best > 0 {
			out = append(out, p.Algorithm)
		}
	}
	return out
}

// emptySums are the digests of empty content with every algorithm.
func emptySums() []verify.Digest {
	ds, _, _ := verify.Sum(strings.NewReader(""), verify.Algorithms)
	return ds
}
