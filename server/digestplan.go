package server

import (
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/hdig/hdig/verify"
)

// digestPlan is what one response says about digests: the Repr-Digest
// members (or legacy Digest), and the algorithms for Content-Digest, whose
// value depends on the status and range ServeContent settles on.
type digestPlan struct {
	repr         []verify.Digest
	stream       []verify.Algorithm // Repr-Digest's algorithms, for trailers (stream.go)
	legacy       bool
	content      []verify.Algorithm // nil: no Content-Digest
	wrongContent bool
}

// planDigests computes the Repr-Digest of the selected representation
// (cached per file version), with the algorithms of Want-Repr-Digest, and
// notes whether Content-Digest is wanted. The faults that alter digests
// are applied here.
func (s *Server) planDigests(r *http.Request, rep *Representation) (*digestPlan, error) {
	f := s.cfg.faults
	p := &digestPlan{wrongContent: f.wrongContent}
	if f.omitDigests {
		return p, nil
	}
	algs := chooseAlgs(r.Header, verify.WantReprDigest)
	if f.legacy {
		algs, p.legacy = legacyAlgs(r.Header), true
	}
	if rep.stream {
		p.stream = algs
		if wantsContentDigest(r.Header) {
			p.content = chooseAlgs(r.Header, verify.WantContentDigest)
		}
		rep.streamAlgs = p.streamAlgs()
		return p, nil
	}
	src := rep
	if f.decodedRepr && rep.identity != nil {
		src = rep.identity
	}
	ds, err := src.Digests(r.Context(), algs)
	if err != nil {
		return nil, err
	}
	if f.wrongRepr {
		ds = corrupt(ds)
	}
	p.repr = ds
	if !f.legacy && wantsContentDigest(r.Header) {
		p.content = chooseAlgs(r.Header, verify.WantContentDigest)
	}
	return p, nil
}

// setHeaders sets Repr-Digest (or Digest).
func (p *digestPlan) setHeaders(h http.Header) {
	if len(p.repr) == 0 {
		return
	}
	if p.legacy {
		h.Set(verify.LegacyDigest, verify.FormatLegacyDigest(p.repr))
		return
	}
	h.Set(verify.ReprDigest, formatRepr(p.repr))
}

// reprFields memoises the Repr-Digest field of single digests: formatting
// a Structured Field costs more than the rest of a small GET's header.
var reprFields = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// reprFieldsMax bounds reprFields; it is emptied when full.
const reprFieldsMax = 4096

func formatRepr(ds []verify.Digest) string {
	if len(ds) != 1 {
		return verify.FormatDigests(ds)
	}
	// The key is made on the stack: looking up m[string(b)] copies nothing.
	var buf [96]byte
	b := append(append(append(buf[:0], ds[0].Algorithm...), '='), ds[0].Value...)
	reprFields.Lock()
	v, ok := reprFields.m[string(b)]
	reprFields.Unlock()
	if ok {
		return v
	}
	v = verify.FormatDigests(ds)
	reprFields.Lock()
	if len(reprFields.m) >= reprFieldsMax {
		clear(reprFields.m)
	}
	reprFields.m[string(b)] = v
	reprFields.Unlock()
	return v
}

// formatContent formats Content-Digest members, corrupted under
// WithWrongDigest.
func (p *digestPlan) formatContent(ds []verify.Digest) string {
	if p.wrongContent {
		ds = corrupt(ds)
	}
	return verify.FormatDigests(ds)
}

// rangeDigests hashes bytes [off, off+n) of the representation.
func rangeDigests(ctx context.Context, c io.ReaderAt, off, n int64, algs []verify.Algorithm) ([]verify.Digest, error) {
	ds, _, err := verify.Sum(ctxReader{ctx, io.NewSectionReader(c, off, n)}, algs)
	return ds, err
}
