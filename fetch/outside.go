package fetch

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/hdig/hdig/verify"
)

// What else speaks for the whole representation besides Repr-Digest: the
// user's expected digests (--expect, --checksum-file), and fields origins
// send outside RFC 9530 (x-goog-hash, x-amz-checksum-*, Unencoded-Digest).
// Each is checked with verify.Compare against the digests the same pass
// computed over the representation (or, with --compressed, over the
// decoded bytes), wherever Repr-Digest is: one response, pieces, a resumed
// part, a rebuilt delta.

// outsideReprFields are the origin's fields outside RFC 9530 about the
// whole representation, from one header section.
func outsideReprFields(h http.Header) []verify.DigestField {
	return verify.ForeignFields(h)
}

// outsideChecks compares the origin's foreign fields and Unencoded-Digest
// of hdr with the basis, and the user's expected digests with the bytes
// written.
func outsideChecks(v *verify.Verdict, hdr, tr fields, basis reprBasis, req *Request) {
	sectionChecks(v, hdr, basis, req)
	// A trailer's are checked as a header's, and labelled so that no
	// signature over the header's field is credited with their match.
	var tv verify.Verdict
	sectionChecks(&tv, tr, basis, req)
	v.Warn(tv.Warnings...)
	v.Add(label(tv.Checks, " (trailer)")...)
	for _, f := range req.Expected {
		v.Add(expectedChecks(f, basis, req)...)
	}
}

// sectionChecks checks the fields outside RFC 9530 of one section (header
// or trailer) of a response. Among foreign, the pieces' fields of the
// whole a download adds (lateRef), an Unencoded-Digest is judged as one.
func sectionChecks(v *verify.Verdict, hdr fields, basis reprBasis, req *Request) {
	for _, f := range hdr.foreign {
		if f.Name == verify.UnencodedDigest {
			unencodedChecks(v, f, basis, req)
			continue
		}
		if f.Ignored != "" && len(f.Digests) > 0 {
			v.Add(ignoredAll(f, f.Ignored)...) // an S3 composite: said once, in its check
			continue
		}
		v.Warn(f.Warnings()...)
		v.Add(basis.compare(f, req.Policy, "")...)
	}
	unencodedChecks(v, hdr.unencoded, basis, req)
}

// unencodedChecks compares Unencoded-Digest (the representation with no
// content coding) with the decoded bytes, or with the representation when
// it has no coding.
func unencodedChecks(v *verify.Verdict, f verify.DigestField, basis reprBasis, req *Request) {
	v.Warn(f.Warnings()...)
	switch {
	case !f.Usable():
	case basis.why != "":
		v.Add(ignoredAll(f, basis.why)...)
	case basis.decoded:
		v.Add(withReason(verify.Compare(f, basis.written, req.Policy), "over the decoded bytes")...)
	case encoded(basis.coding):
		v.Add(ignoredAll(f, "it covers the "+basis.coding+"-decoded bytes, and the body was not decoded (use --compressed)")...)
	default:
		v.Add(verify.Compare(f, basis.sums, req.Policy)...)
	}
}

// expectedChecks compares a user's digests with the bytes written: the
// representation, decoded with --compressed.
func expectedChecks(f verify.DigestField, basis reprBasis, req *Request) []verify.Check {
	switch {
	case basis.why != "":
		return ignoredAll(f, "the bytes written are not the whole representation: "+basis.why)
	case !basis.content:
		return ignoredAll(f, "the response has no content to compare it with")
	case basis.decoded:
		return withReason(verify.Compare(f, basis.written, req.Policy), "over the decoded bytes written")
	}
	return verify.Compare(f, basis.sums, req.Policy)
}

// coded notes the content coding of the representation and whether the
// body was written decoded; plain has hashed all the decoded bytes (nil
// when they are not all known: a body that failed to decode).
func (b reprBasis) coded(coding string, decoded bool, plain *verify.Hasher) reprBasis {
	b.coding, b.decoded = coding, decoded
	if decoded && plain != nil {
		b.written = plain.Sums()
	}
	return b
}

func withReason(cs []verify.Check, why string) []verify.Check {
	for i := range cs {
		cs[i].Reason = strings.TrimPrefix(cs[i].Reason+"; "+why, "; ")
	}
	return cs
}

// expectedAlgorithms are the algorithms of the user's digests.
func (r *Request) expectedAlgorithms() []verify.Algorithm {
	var out []verify.Algorithm
	for _, f := range r.Expected {
		for _, d := range f.Digests {
			if a, ok := verify.Find(d.Algorithm); ok && !hasAlg(out, a.Key) {
				out = append(out, a)
			}
		}
	}
	return out
}

// withExpected adds the user's algorithms to algs; added says some were
// missing.
func (r *Request) withExpected(algs []verify.Algorithm) ([]verify.Algorithm, bool) {
	out, added := algs, false
	for _, a := range r.expectedAlgorithms() {
		if !hasAlg(out, a.Key) {
			out, added = append(append([]verify.Algorithm{}, out...), a), true
		}
	}
	return out, added
}

func hasAlg(algs []verify.Algorithm, key string) bool {
	for _, a := range algs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// decodedAlgorithms are what the decoded bytes are hashed with: the
// user's algorithms, those of Unencoded-Digest, and every algorithm when
// the response declares Unencoded-Digest in Trailer (its algorithm is
// known only at the end); nil: nothing to hash. One nobody declared is
// reported not computed.
func (r *Request) decodedAlgorithms(resp *http.Response, hdr fields) []verify.Algorithm {
	algs := r.expectedAlgorithms()
	for _, d := range hdr.unencoded.Digests {
		if a, ok := verify.Find(d.Algorithm); ok && !hasAlg(algs, a.Key) {
			algs = append(algs, a)
		}
	}
	if declaresTrailer(resp, func(k string) bool { return k == "Unencoded-Digest" }) {
		for _, a := range verify.All {
			if !hasAlg(algs, a.Key) {
				algs = append(algs, a)
			}
		}
	}
	return algs
}

// checksumModeFor says whether a request to rawURL asks S3 for its
// checksums: always with --amz-checksum-mode, else for Amazon's hosts.
func checksumModeFor(rawURL string, asked bool) bool {
	if asked {
		return true
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return h == "amazonaws.com" || strings.HasSuffix(h, ".amazonaws.com")
}
