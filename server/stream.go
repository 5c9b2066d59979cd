package server

import (
	"net/http"
	"strings"

	"github.com/hdig/hdig/verify"
)

// A file whose sha-256 is not known yet (not indexed, not hashed by an
// earlier request) is sent without hashing it first when the client takes
// trailers (TE: trailers): the body starts at once, hashed as it goes, and
// Repr-Digest (and Content-Digest, when asked for) follow as trailer
// fields (RFC 9530 §6.4; RFC 9110 §6.5), announced in Trailer. Such a
// response has no ETag: the ETag is the sha-256, which is known only at the
// end. Only a plain GET of a settled file qualifies: the guard checks at
// the end that the file still has the ID it had when opened, which any
// write would have changed, and cuts the connection instead of sending a
// clean end otherwise (a torn read never gets a digest). Everything else
// is hashed first, as before.

// defaultStreamAt is the smallest file streamed before it is hashed:
// hashing a smaller one first costs less than losing Content-Length and
// sendfile.
const defaultStreamAt = 1 << 20

// noFaults is the faults value of a server that injects none.
var noFaults = faults{flipAt: -1, truncateAt: -1}

// streamable reports whether rep, a file's identity opened for r, is sent
// before its digests are known.
func (s *Server) streamable(r *http.Request, rep *Representation) bool {
	if rep.proof == nil || !rep.proof.settled || !rep.proof.streamed || rep.Size < s.cfg.streamAt ||
		s.cfg.faults != noFaults || rep.sums.has(sha256Alg.Key) || !mayTrail(r, true) {
		return false
	}
	// A coding the client would get needs the identity's sha-256 first.
	return !s.codable(rep.Size, compressible(rep.ContentType)) || negotiate(r.Header) == ""
}

// codable says a file of size bytes, compressible or not by its type, has
// encoded variants: its responses vary on Accept-Encoding.
func (s *Server) codable(size int64, compressible bool) bool {
	return s.cfg.compressLimit != 0 && size > 0 && size <= s.cfg.compressLimit && compressible
}

// mayTrail is the one rule for the trailer fields the server sends: only
// where the message can carry them (the chunked coding of HTTP/1.1, or
// HTTP/2; HTTP/1.0 has none), and, for fields the client would otherwise
// get in the header (fromHeader: the Repr-Digest and ETag a streamed body
// gives up), only when the request said TE: trailers. RFC 9110 §6.5.1:
// trailers may be discarded on the way (curl, Go's net/http and hdig read
// them, browsers drop them), so a server SHOULD NOT put there what the
// client needs; without TE the file is hashed first and they stay in the
// header. A field that would otherwise not be sent at all (the
// Content-Digest a client asked for, of a range too large to hash before
// the header) may trail for any client: at worst it is dropped, as it
// would have been omitted, and the client that asked for it reads it.
func mayTrail(r *http.Request, fromHeader bool) bool {
	if !r.ProtoAtLeast(1, 1) {
		return false
	}
	if !fromHeader {
		return true
	}
	for _, v := range r.Header.Values("TE") {
		for _, tok := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(tok, ";")
			if strings.EqualFold(strings.TrimSpace(name), "trailers") {
				return true
			}
		}
	}
	return false
}

// streamAlgs is what a streamed response hashes: sha-256 (the index's),
// those of Repr-Digest and those of Content-Digest.
func (p *digestPlan) streamAlgs() []verify.Algorithm {
	return union(union(defaultAlgs, p.stream), p.content)
}

// prepareStream declares the trailers of a streamed 200 and drops
// Content-Length, so that HTTP/1.1 uses the chunked coding.
func (w *bodyWriter) prepareStream() {
	var names []string
	if len(w.plan.stream) > 0 {
		names = append(names, verify.ReprDigest)
	}
	if w.plan.content != nil {
		names = append(names, verify.ContentDigest)
	}
	h := w.Header()
	h.Del("Content-Length")
	if len(names) > 0 {
		h.Set("Trailer", strings.Join(names, ", "))
	}
}

// finishStream sets the trailer values from the digests the guard
// computed and checked (Representation.used).
func (w *bodyWriter) finishStream() {
	h, rep := w.Header(), w.rep
	get := func(algs []verify.Algorithm) []verify.Digest {
		ds := make([]verify.Digest, 0, len(algs))
		for _, a := range algs {
			v, _ := rep.used.get(a.Key)
			ds = append(ds, verify.Digest{Algorithm: a.Key, Value: v})
		}
		return ds
	}
	if len(w.plan.stream) > 0 {
		h.Set(verify.ReprDigest, formatRepr(get(w.plan.stream)))
	}
	if w.plan.content != nil {
		h.Set(verify.ContentDigest, w.plan.formatContent(get(w.plan.content)))
	}
}

// finishStream checks a streamed body and records its digests: every byte
// of the file went through the hasher, and the file still has the ID it
// had, settled, when opened. It reports false when the body cannot be
// vouched for (the connection is then cut).
func (g *guard) finishStream() bool {
	rep := g.rep
	if g.n != rep.Size || !rep.proof.same() {
		return false
	}
	sums := g.hasher.Sums()
	rep.used, rep.trusted = usedDigests(sums), true
	rep.sums.put(sums, true)
	sha, _ := rep.used.get(sha256Alg.Key)
	g.s.index.add(rep.key.name, rep.key.id, sha)
	return true
}
