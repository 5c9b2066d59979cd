package server

import (
	"net/http"
	"strings"

	"github.com/hdig/hdig/verify"
)

// uploadFields are the request fields that carry a digest of an upload's
// bytes: RFC 9530's, RFC 1864's Content-MD5 and the obsolete RFC 3230
// Digest. For a whole-content PUT or POST the content and the
// representation data are the same bytes (RFC 9530 §3.1), so each is
// checked against the received bytes.
var uploadFields = []string{verify.ContentDigest, verify.ReprDigest, verify.ContentMD5, verify.LegacyDigest}

// requestFields parses the request's digest fields (uploadFields) with the
// parsers hdig get uses (those of RFC 9530 that are malformed are refused
// first: malformedField).
func requestFields(h http.Header) []verify.DigestField {
	var out []verify.DigestField
	for _, name := range uploadFields {
		var f verify.DigestField
		switch name {
		case verify.ContentMD5:
			f = verify.ParseContentMD5(h)
		case verify.LegacyDigest:
			f = verify.ParseLegacyDigest(h.Values(name))
		default:
			f = verify.ParseDigestField(name, h.Values(name))
		}
		if f.Usable() {
			out = append(out, f)
		}
	}
	return out
}

// malformedField names a Content-Digest, Repr-Digest or Content-MD5 of h
// that cannot be read whole: not a Dictionary (RFC 9651 §4.2), or with a member that is
// not a Byte Sequence (RFC 9530 §2, §3). An uploader that sent one asked
// for integrity the server cannot check; ignoring it, as a response's is
// (with a warning nobody would see here), would store the bytes unverified
// and answer 201 as for a verified upload. RFC 9651 §4.2 lets a recipient
// treat such a message as malformed instead: the upload is refused
// (malformedDigest). A well-formed field of algorithms the server does not
// know is no such field: RFC 9530 §2 lets a sender send one not knowing
// whether the recipient supports it.
func malformedField(h http.Header) (name, why string, bad bool) {
	for _, f := range []verify.DigestField{
		verify.ParseDigestField(verify.ContentDigest, h.Values(verify.ContentDigest)),
		verify.ParseDigestField(verify.ReprDigest, h.Values(verify.ReprDigest)),
		verify.ParseContentMD5(h), // one algorithm: any value it cannot read is an md5 unread
	} {
		name := f.Name
		switch {
		case f.Present && f.Ignored != "":
			return name, f.Ignored, true
		case len(f.Skipped) > 0:
			return name, strings.Join(f.Skipped, "; "), true
		}
	}
	return "", "", false
}

// A request may send its digests in a trailer (RFC 9530 §2, §3), chunked
// or over HTTP/2, after the content: their algorithms are known only once
// every byte went by. A request that declares such a field in Trailer has
// its content hashed with every registered algorithm; one that arrives
// undeclared is refused when its algorithm was not computed, never let
// through unchecked (an upload with a wrong digest changes nothing).

// declaresDigestTrailer says the request declares one of uploadFields in
// Trailer (Go's server lists declared names as the keys of r.Trailer
// before the body is read).
func declaresDigestTrailer(r *http.Request) bool {
	for _, name := range uploadFields {
		if _, ok := r.Trailer[http.CanonicalHeaderKey(name)]; ok {
			return true
		}
	}
	return false
}

// notComputed names a member of a trailer's fields whose algorithm hdig
// knows but did not compute (got has no sum for it).
func notComputed(trailer []verify.DigestField, got map[string][]byte) (field, alg string, ok bool) {
	for _, f := range trailer {
		for _, d := range f.Digests {
			if _, known := verify.Lookup(d.Algorithm); known && got[d.Algorithm] == nil {
				return f.Name, d.Algorithm, true
			}
		}
	}
	return "", "", false
}

// wireAlgs lists the registered algorithms the fields use; unknown keys
// cannot be checked and are skipped.
func wireAlgs(fields []verify.DigestField) []verify.Algorithm {
	var out []verify.Algorithm
	for _, f := range fields {
		for _, d := range f.Digests {
			if a, ok := verify.Lookup(d.Algorithm); ok {
				out = union(out, []verify.Algorithm{a})
			}
		}
	}
	return out
}

// mismatches compares every member with the computed digests through
// verify.Compare: any computed algorithm that does not match fails,
// deprecated or not (md5 included: the uploader sent it); unknown ones
// are skipped alone.
func mismatches(fields []verify.DigestField, got map[string][]byte) []mismatch {
	computed := make([]verify.Digest, 0, len(got))
	for k, v := range got {
		computed = append(computed, verify.Digest{Algorithm: k, Value: v})
	}
	var out []mismatch
	for _, f := range fields {
		for _, c := range verify.Compare(f, computed, verify.Policy{Accept: verify.Keys()}) {
			if c.Result == verify.Mismatch {
				out = append(out, mismatch{Field: c.Field, Algorithm: c.Algorithm,
					Expected: verify.Base64(c.Expected), Actual: verify.Base64(c.Actual)})
			}
		}
	}
	return out
}

// union returns a followed by the algorithms of b not in a.
func union(a, b []verify.Algorithm) []verify.Algorithm {
	out := append([]verify.Algorithm(nil), a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			found = found || y.Key == x.Key
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

// pick returns the digests of ds for algs, in the order of algs.
func pick(ds []verify.Digest, algs []verify.Algorithm) []verify.Digest {
	m := sumMap(ds)
	out := make([]verify.Digest, 0, len(algs))
	for _, a := range algs {
		if v, ok := m[a.Key]; ok {
			out = append(out, verify.Digest{Algorithm: a.Key, Value: v})
		}
	}
	return out
}

func sumMap(ds []verify.Digest) map[string][]byte {
	m := make(map[string][]byte, len(ds))
	for _, d := range ds {
		m[d.Algorithm] = d.Value
	}
	return m
}
