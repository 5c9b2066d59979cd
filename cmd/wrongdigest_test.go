package cmd

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
)

// wrongDigest sets, beside a Repr-Digest sha-256 that matches body, one
// digest hdig can compute that does not: a field of a response that must
// fail however the bytes are settled (a 304 in place, -C over a complete
// FILE), never pass as "not computed".
type wrongDigest struct {
	name string
	set  func(h http.Header)
}

// wrongDigestsBeside returns body's matching Repr-Digest value and the
// cases: a Repr-Digest md5 or sha-512 member, the obsolete Digest, an
// x-goog-hash, each of other bytes.
func wrongDigestsBeside(body []byte) (good string, cases []wrongDigest) {
	s256 := sha256.Sum256(body)
	other := sha512.Sum512([]byte("some other version"))
	b64 := base64.StdEncoding.EncodeToString
	good = "sha-256=:" + b64(s256[:]) + ":"
	return good, []wrongDigest{
		{"repr-md5", func(h http.Header) { h.Set("Repr-Digest", good+", md5=:"+b64(other[:16])+":") }},
		{"repr-sha-512", func(h http.Header) { h.Set("Repr-Digest", good+", sha-512=:"+b64(other[:])+":") }},
		{"digest-md5", func(h http.Header) {
			h.Set("Repr-Digest", good)
			h.Set("Digest", "md5="+b64(other[:16]))
		}},
		{"x-goog-hash", func(h http.Header) {
			h.Set("Repr-Digest", good)
			h.Set("x-goog-hash", "md5="+b64(other[:16]))
		}},
	}
}
