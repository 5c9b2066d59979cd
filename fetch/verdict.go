package fetch

import (
	"fmt"
	"net/http"

	"github.com/hdig/hdig/verify"
)

// fields are the Integrity fields of one header or trailer section.
type fields struct {
	repr, content, legacy verify.DigestField
}

func responseFields(h http.Header) fields {
	return fields{
		repr:    verify.ParseDigestField(verify.ReprDigest, h.Values(verify.ReprDigest)),
		content: verify.ParseDigestField(verify.ContentDigest, h.Values(verify.ContentDigest)),
		legacy:  verify.ParseLegacyDigest(h.Values(verify.LegacyDigest)),
	}
}

// bodyVerdict checks a received body. Content-Digest covers the bytes of
// this message; Repr-Digest the selected representation, which is the same
// bytes unless the response is partial (RFC 9530 §2, §3, B.3).
func bodyVerdict(resp *http.Response, hdr, tr fields, sums []verify.Digest, p verify.Policy) verify.Verdict {
	var v verify.Verdict
	partial := resp.StatusCode == http.StatusPartialContent
	for _, sec := range []struct {
		f     fields
		where string
	}{{hdr, ""}, {tr, " (trailer)"}} {
		for _, f := range []verify.DigestField{sec.f.content, sec.f.repr} {
			v.Warn(suffix(f.Warnings(), sec.where)...)
			if f.Name == verify.ReprDigest && partial {
				if f.Usable() {
					v.Add(ignoredAll(f, "partial content: Repr-Digest covers the whole representation")...)
				}
				continue
			}
			v.Add(label(verify.Compare(f, sums, p), sec.where)...)
		}
		// The obsolete Digest field counts only where Repr-Digest is absent.
		if sec.f.legacy.Present && !sec.f.repr.Usable() && !partial {
			v.Warn(suffix(sec.f.legacy.Warnings(), sec.where)...)
			v.Add(label(verify.Compare(sec.f.legacy, sums, p), sec.where)...)
		}
	}
	agree(&v, hdr.repr, tr.repr)
	agree(&v, hdr.content, tr.content)
	if !hdr.repr.Present && !tr.repr.Present && !hdr.content.Present && !tr.content.Present && !hdr.legacy.Present {
		v.Warn("the origin sent no digest: nothing proves these bytes")
	}
	return v
}

// headVerdict checks a HEAD response: Content-Digest must be absent or the
// digest of empty content (RFC 9530 B.2); Repr-Digest cannot be checked.
func headVerdict(resp *http.Response, req *Request) verify.Verdict {
	var v verify.Verdict
	hdr := responseFields(resp.Header)
	v.Warn(hdr.content.Warnings()...)
	v.Warn(hdr.repr.Warnings()...)
	v.Add(verify.Compare(hdr.content, verify.EmptyDigests(verify.Algorithms), req.Policy)...)
	if hdr.repr.Usable() {
		v.Add(ignoredAll(hdr.repr, "HEAD carries no content to check it against")...)
	}
	return v
}

func ignoredAll(f verify.DigestField, why string) []verify.Check {
	var out []verify.Check
	for _, d := range f.Digests {
		out = append(out, verify.Check{Field: f.Name, Algorithm: d.Algorithm, Expected: d.Value, Result: verify.Ignored, Reason: why})
	}
	return out
}

// agree fails a field whose header and trailer instances disagree, even
// on an algorithm hdig does not know or did not compute.
func agree(v *verify.Verdict, hdr, tr verify.DigestField) {
	for _, c := range verify.Agree(hdr, tr) {
		v.Warn(fmt.Sprintf("%s %s differs between header and trailer", c.Field, c.Algorithm))
		v.Add(c)
	}
}

// bodyAlgorithms are the algorithms a body is hashed with: the supported
// ones the header names, asks for or the policy accepts (withTrailer).
func bodyAlgorithms(req *Request, resp *http.Response, hdr fields) []verify.Algorithm {
	return withTrailer(resp, req.algorithms(hdr.repr, hdr.content, hdr.legacy))
}

// withTrailer is every registered algorithm when the response announces an
// Integrity field as a trailer, else algs: a trailer's digest, deprecated
// or not, is never left unchecked for want of its hash.
func withTrailer(resp *http.Response, algs []verify.Algorithm) []verify.Algorithm {
	if digestTrailer(resp) {
		return verify.Algorithms
	}
	return algs
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
