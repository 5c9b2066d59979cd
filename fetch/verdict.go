package fetch

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/hdig/hdig/verify"
)

// fields are the Integrity fields of one header or trailer section.
type fields struct {
	repr, content, legacy verify.DigestField
	// Outside RFC 9530: Content-MD5 (of the content), Unencoded-Digest and
	// x-goog-hash, x-amz-checksum-* (of the representation).
	md5, unencoded verify.DigestField
	foreign        []verify.DigestField
}

func responseFields(h http.Header) fields {
	return fields{
		repr:      verify.ParseDigestField(verify.ReprDigest, h.Values(verify.ReprDigest)),
		content:   verify.ParseDigestField(verify.ContentDigest, h.Values(verify.ContentDigest)),
		legacy:    verify.ParseLegacyDigest(h.Values(verify.LegacyDigest)),
		md5:       verify.ParseContentMD5(h),
		unencoded: verify.ParseUnencodedDigest(h),
		foreign:   outsideReprFields(h),
	}
}

// all lists every field, for the algorithms to compute.
func (f fields) all() []verify.DigestField {
	return append([]verify.DigestField{f.repr, f.content, f.legacy, f.md5, f.unencoded}, f.foreign...)
}

// sent says the section carries any digest field.
func (f fields) sent() bool {
	return f.repr.Present || f.content.Present || f.legacy.Present || f.md5.Present || f.unencoded.Present || len(f.foreign) > 0
}

// bodyVerdict checks a received body: Content-Digest against the digests
// of this message's content, Repr-Digest (or the obsolete Digest) against
// what basis says it covers (RFC 9530 §2, §3, B.3, B.5).
func bodyVerdict(hdr, tr fields, content []verify.Digest, basis reprBasis, req *Request) verify.Verdict {
	var v verify.Verdict
	p := req.Policy
	for _, sec := range []struct {
		f     fields
		where string
	}{{hdr, ""}, {tr, " (trailer)"}} {
		v.Warn(suffix(sec.f.content.Warnings(), sec.where)...)
		v.Add(label(verify.Compare(sec.f.content, content, p), sec.where)...)
		v.Warn(suffix(sec.f.repr.Warnings(), sec.where)...)
		v.Add(basis.compare(sec.f.repr, p, sec.where)...)
		// The obsolete Digest field is checked as Repr-Digest is, beside it
		// or not: a member hdig computed that does not match is a failure.
		v.Warn(suffix(sec.f.legacy.Warnings(), sec.where)...)
		v.Add(basis.compare(sec.f.legacy, p, sec.where)...)
	}
	if basis.warning != "" && (hdr.repr.Usable() || tr.repr.Usable()) {
		v.Warn(basis.warning)
	}
	for _, sec := range []fields{hdr, tr} { // a trailer's are checked as a header's
		v.Warn(sec.md5.Warnings()...)
		v.Add(verify.Compare(sec.md5, content, p)...)
	}
	outsideChecks(&v, hdr, tr, basis, req)
	agree(&v, hdr.repr, tr.repr)
	agree(&v, hdr.content, tr.content)
	if !hdr.sent() && !tr.sent() {
		if len(req.Expected) > 0 {
			v.Warn("the origin sent no digest: only the digests you gave can prove these bytes")
		} else {
			v.Warn("the origin sent no digest: nothing proves these bytes")
		}
	}
	return v
}

// noContentVerdict checks a response without content (HEAD, 304):
// Content-Digest must be absent or the digest of empty content (RFC 9530
// B.2); Repr-Digest cannot be checked, for the reason why.
func noContentVerdict(h http.Header, req *Request, why string) verify.Verdict {
	v := noContentFields(h, req, why)
	for _, f := range req.Expected {
		v.Add(ignoredAll(f, why)...)
	}
	return v
}

// noContentFields is noContentVerdict without the user's digests.
func noContentFields(h http.Header, req *Request, why string) verify.Verdict {
	var v verify.Verdict
	hdr := responseFields(h)
	emptyContentChecks(&v, h, req.Policy)
	v.Warn(hdr.repr.Warnings()...)
	if hdr.repr.Usable() {
		v.Add(ignoredAll(hdr.repr, why)...)
	}
	return v
}

// notModifiedVerdict is noContentVerdict of a 304 to the caller's own
// conditions, which keeps the caller's copy: with -o FILE (a FileSink),
// FILE is the bytes the user is left with, and the user's digests
// (--expect, --checksum-file) are compared with it, a mismatch failing as
// any other. Without FILE (stdout, or FILE absent) nothing holds bytes to
// compare: they are ignored, and a warning says so. FILE that exists and
// cannot be read is an input error.
//
// It returns, beside the verdict, the size of FILE when FILE was compared
// (the bytes the verdict speaks of, as a full download's are), else 0.
func notModifiedVerdict(h http.Header, req *Request, sink Sink, why string) (verify.Verdict, int64, error) {
	v := noContentFields(h, req, why)
	if len(req.Expected) == 0 {
		return v, 0, nil
	}
	unread := func(what string) (verify.Verdict, int64, error) {
		for _, f := range req.Expected {
			v.Add(ignoredAll(f, why)...)
		}
		v.Warn(fmt.Sprintf("--expect/--checksum-file not compared: the 304 kept %s, no bytes to compare the expected digests with", what))
		return v, 0, nil
	}
	fs, ok := sink.(*FileSink)
	if !ok {
		return unread("nothing (the body goes to stdout)")
	}
	f, err := os.Open(fs.Path)
	if errors.Is(err, iofs.ErrNotExist) {
		return unread(fs.Path + ", which does not exist")
	} else if err != nil {
		return v, 0, &inputError{err: fmt.Errorf("read %s, kept by the 304, to compare it with --expect: %w", fs.Path, err)}
	}
	defer f.Close()
	hs := verify.NewHasher(req.expectedAlgorithms())
	defer hs.Close()
	n, err := io.Copy(hs, f)
	if err != nil {
		return v, 0, &inputError{err: fmt.Errorf("read %s, kept by the 304, to compare it with --expect: %w", fs.Path, err)}
	}
	sums := hs.Sums()
	for _, e := range req.Expected {
		v.Add(withReason(verify.Compare(e, sums, req.Policy), "over "+fs.Path+", kept by the 304")...)
	}
	return v, n, nil
}

// emptyContentChecks compares the Content-Digest of a response that
// carries no content (a 304, the answer to a HEAD) with the digests of
// empty content.
func emptyContentChecks(v *verify.Verdict, h http.Header, p verify.Policy) {
	cd := verify.ParseDigestField(verify.ContentDigest, h.Values(verify.ContentDigest))
	v.Warn(cd.Warnings()...)
	v.Add(verify.Compare(cd, verify.EmptyDigests(verify.Algorithms), p)...)
}

func ignoredAll(f verify.DigestField, why string) []verify.Check {
	var out []verify.Check
	for _, d := range f.Digests {
		out = append(out, verify.Check{Field: f.Name, Algorithm: d.Algorithm, Expected: d.Value, Result: verify.Ignored, Reason: why})
	}
	return out
}

// agree fails a field whose header and trailer instances disagree on an
// algorithm hdig does not know or did not compare with the bytes. Where
// both sections' values of the algorithm were compared (every value, a
// repeated key's earlier one too: verify.Compare), the wrong one is
// already a mismatch: the disagreement is said, not counted again.
func agree(v *verify.Verdict, hdr, tr verify.DigestField) {
	compared := map[string]bool{}
	for _, c := range v.Checks {
		if c.Field == hdr.Name && c.Actual != nil {
			compared[c.Algorithm] = true
		}
	}
	for _, c := range verify.Agree(hdr, tr) {
		v.Warn(fmt.Sprintf("%s %s differs between header and trailer", c.Field, c.Algorithm))
		if !compared[c.Algorithm] {
			v.Add(c)
		}
	}
}

// bodyAlgorithms are the algorithms a body is hashed with: the supported
// ones the header names or the user expects, and sha-256 (Request.algorithms),
// and those a trailer may bring (withTrailer).
func bodyAlgorithms(req *Request, resp *http.Response, hdr fields) []verify.Algorithm {
	return withTrailer(req, resp, req.algorithms(hdr.all()...))
}

// withTrailer adds to algs the algorithms a digest in the trailer may name,
// known only at the end of the body: every algorithm hdig computes
// (verify.All) when the response declares an Integrity field in Trailer;
// when it declares none but the request advertised trailers (TE:
// trailers), those Want-* asked for and the policy accepts. A trailer's
// digest, deprecated or not, is never left unchecked for want of its hash.
func withTrailer(req *Request, resp *http.Response, algs []verify.Algorithm) []verify.Algorithm {
	var more []verify.Algorithm
	switch {
	case digestTrailer(resp):
		more = verify.All
	case advertisesTrailers(resp.Request) || trailersPossible(resp):
		more = pick(req.mayTrail())
	default:
		return algs
	}
	out := append([]verify.Algorithm{}, more...)
	for _, a := range algs {
		if !hasAlg(out, a.Key) {
			out = append(out, a)
		}
	}
	return out
}

// trailersPossible says the response's framing can end with a trailer
// section although none was declared: HTTP/1.1 chunked, or HTTP/2 and
// later. A trailer nobody declared may still name a digest, and one not
// computed would pass wrong bytes as unverified; a response with its
// length up front (a static file's usual answer) cannot carry one.
func trailersPossible(resp *http.Response) bool {
	if resp.ProtoMajor >= 2 {
		return true
	}
	for _, te := range resp.TransferEncoding {
		if strings.EqualFold(te, "chunked") {
			return true
		}
	}
	return false
}

// advertisesTrailers says the request carried TE: trailers (RFC 9110
// §10.1.4): the origin may then send fields in the trailer it did not
// declare.
func advertisesTrailers(r *http.Request) bool {
	if r == nil {
		return false
	}
	for _, v := range r.Header.Values("TE") {
		for _, t := range strings.Split(v, ",") {
			t, _, _ = strings.Cut(t, ";")
			if strings.EqualFold(strings.TrimSpace(t), "trailers") {
				return true
			}
		}
	}
	return false
}

// label notes in each check's reason that it came from the trailer; the
// field name stays the same so policies count it alike.
func label(cs []verify.Check, where string) []verify.Check {
	if where == "" {
		return cs
	}
	for i := range cs {
		if cs[i].Reason == "" {
			cs[i].Reason = "in trailer"
		} else {
			cs[i].Reason = "in trailer; " + cs[i].Reason
		}
	}
	return cs
}

func suffix(ws []string, where string) []string {
	for i := range ws {
		ws[i] += where
	}
	return ws
}
