package fetch

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/hdig/hdig/verify"
)

// A Repr-Digest on the pieces only. An origin (or a cache in front of it)
// may send Repr-Digest with partial content and not with the first 200.
// It covers the whole representation all the same (RFC 9530 §3), so the
// first piece's field is adopted as the whole file's when the first
// response had none; every later piece must agree with it, as with the
// first response's, and the whole file is compared with it. A piece's
// members no earlier answer carried (lateMore: of another algorithm, or
// of the obsolete Digest and the object stores' fields) cover the whole
// as well: they are compared with it beside the others, never left out
// because another digest matched. Their algorithms were not known
// when hashing began: those not computed are computed over the finished
// file (rehash), a read of the file only for such an origin.

// noteLateRepr adopts the Repr-Digest of a section h (header or trailer)
// of an origin's 206 to piece p when the first response sent none, or
// checks it against the one adopted, and keeps its other fields of the
// whole (noteWhole).
func (d *download) noteLateRepr(h http.Header, p *piece) error {
	if err := d.noteLate(h, p); err != nil {
		return err
	}
	d.noteWhole(h)
	return nil
}

// noteWhole keeps, in lateMore, the members of the fields of a piece's
// header or trailer other than Repr-Digest that speak for the whole
// representation (the obsolete Digest, Unencoded-Digest, x-goog-hash,
// x-amz-checksum-*) and that no earlier answer's field of the same name
// carries: they are compared with the whole as the first response's are
// (each by its field's rule: sectionChecks).
func (d *download) noteWhole(h http.Header) {
	f := responseFields(h)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, x := range append([]verify.DigestField{f.legacy, f.unencoded}, f.foreign...) {
		if more := unnamed(x, d.knownLocked()); more.Usable() {
			d.lateMore = append(d.lateMore, more)
		}
	}
}

// knownLocked are the fields of the whole the version's answers carried
// (d.mu held).
func (d *download) knownLocked() []verify.DigestField {
	return slices.Concat([]verify.DigestField{d.ref.repr, d.ref.legacy, d.ref.unencoded, d.late}, d.ref.foreign, d.lateMore)
}

// noteLate is noteLateRepr of the Repr-Digest of h, a header or a
// trailer. A value another than an earlier piece's is another version
// (versionDiffers), checked again here under the lock for pieces that
// came together. The field adopted keeps its value as sent (lateRaw):
// one that is not a valid Dictionary proves nothing, in a sidecar too.
func (d *download) noteLate(h http.Header, p *piece) error {
	f := reprField(h)
	if !f.Usable() {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.ref.repr.Present && !d.late.Usable() {
		d.late, d.lateRaw = f, strings.Join(h.Values(verify.ReprDigest), ", ")
		return nil
	}
	if why := reprDiffers(f, d.lateReprsLocked()...); why != "" {
		return fmt.Errorf("%w: piece %d (bytes %d-%d): %s", errRestart, p.id, p.start, p.end-1, why)
	}
	if more := unnamed(f, d.knownLocked()); more.Usable() {
		d.lateMore = append(d.lateMore, more)
	}
	return nil
}

// lateReprsLocked are the pieces' Repr-Digest fields (d.mu held).
func (d *download) lateReprsLocked() []verify.DigestField {
	out := []verify.DigestField{d.late}
	for _, f := range d.lateMore {
		if f.Name == verify.ReprDigest {
			out = append(out, f)
		}
	}
	return out
}

// unnamed is f with only its members (and their earlier values) that no
// usable field of the same name in known carries with the same value.
func unnamed(f verify.DigestField, known []verify.DigestField) verify.DigestField {
	named := func(x verify.Digest) bool {
		return slices.ContainsFunc(known, func(k verify.DigestField) bool {
			v, ok := k.Get(x.Algorithm)
			return ok && k.Usable() && k.Name == f.Name && bytes.Equal(v, x.Value)
		})
	}
	f.Digests = slices.DeleteFunc(slices.Clone(f.Digests), named)
	f.Shadowed = slices.DeleteFunc(slices.Clone(f.Shadowed), named)
	return f
}

// pieceTrailer checks the Repr-Digest in the trailer of a piece's 206
// from src (nil: the origin) as its header's is checked (versionDiffers,
// noteLateRepr, which keeps the origin's other fields of the whole there,
// the obsolete Digest and the object stores', as a header's): it covers
// the whole representation (RFC 9530 §3), so the origin's must agree with the version's (another value is another
// version: errRestart), and is adopted as the whole file's when there is
// none. A resume answer (-C) may carry the only Repr-Digest there is in
// its trailer; ignored, a part gone bad ended "unverified". A mirror's is
// compared by the same rule (reprDiffers with versionReprs: the pieces'
// adopted one too), never adopted: another is a mirrorSkip whose bytes
// landed (mirrorFailed drops the mirror and fetches the piece again).
func (d *download) pieceTrailer(src *source, resp *http.Response, p *piece, from int64) error {
	why := reprDiffers(reprField(resp.Trailer), d.versionReprs()...)
	switch {
	case src != nil && !src.origin && why != "":
		// Another version, as in its header (sameRepresentation),
		// its bytes written already: dropped, the piece fetched again.
		return &mirrorSkip{reason: fmt.Sprintf("%s, in the trailer of piece %d: another version", why, p.id), landed: true}
	case src != nil && !src.origin:
		return nil
	case why != "":
		return fmt.Errorf("%w: piece %d (bytes %d-%d): %s (trailer)", errRestart, p.id, from, p.end-1, why)
	}
	return d.noteLateRepr(resp.Trailer, p)
}

// lateRef is the first response's fields with the pieces' Repr-Digest
// in place of the one it did not send, and the pieces' members no earlier
// answer carried (lateMore) among the fields compared with the whole as
// Repr-Digest is (foreign; inHeader credits no signature with them).
func (d *download) lateRef() fields {
	ref := d.ref
	d.mu.Lock()
	defer d.mu.Unlock()
	if !ref.repr.Present && d.late.Usable() {
		ref.repr = d.late
	}
	ref.foreign = slices.Concat(ref.foreign, d.lateMore)
	return ref
}

// lateSums adds to sums those algorithms of the fields the whole file is
// judged by (the reference with the pieces' Repr-Digest, the trailer, the
// Repr-Digest a sidecar recorded, the user's digests) that were not
// computed while the file landed, hashing the file again: a digest hdig
// can check is never left "not computed". Most downloads computed them
// all; a late Repr-Digest, or a resume answer naming an algorithm the part
// was not hashed with (the sidecar is untrusted), costs one read. A read
// that fails is the output's I/O error (ErrOutput), as a failed read-back
// of the prefix hash is: the digests it was for would be left uncompared.
func (d *download) lateSums(sums []verify.Digest) ([]verify.Digest, error) {
	fs := append(d.lateRef().all(), d.trailer.all()...)
	if d.resumed && d.savedRepr != "" {
		fs = append(fs, verify.ParseDigestField(verify.ReprDigest, []string{d.savedRepr}))
	}
	want := map[string]bool{}
	for _, f := range fs {
		for _, x := range f.Digests {
			want[x.Algorithm] = !hasSum(sums, x.Algorithm)
		}
	}
	for _, a := range d.req.expectedAlgorithms() {
		want[a.Key] = !hasSum(sums, a.Key)
	}
	algs := pick(want)
	if len(algs) == 0 {
		return sums, nil
	}
	more, err := d.rehash(algs)
	if err != nil {
		return sums, &writeError{err: fmt.Errorf("read back %s to check the whole file's digests: %w", d.part, err)}
	}
	return append(sums, more...), nil
}

// rehash hashes the whole file on disk with algs: its length, or what
// the file holds when the length was not known (a stream to its end).
func (d *download) rehash(algs []verify.Algorithm) ([]verify.Digest, error) {
	n := d.total
	if n < 0 {
		st, err := d.f.Stat()
		if err != nil {
			return nil, err
		}
		n = st.Size()
	}
	h := verify.NewHasher(algs)
	defer h.Close()
	got, err := io.Copy(h, io.NewSectionReader(d.f, 0, n))
	if err != nil {
		return nil, err
	}
	if got != n {
		return nil, fmt.Errorf("it holds %d bytes, want %d: %w", got, n, io.ErrUnexpectedEOF)
	}
	return h.Sums(), nil
}

func hasSum(sums []verify.Digest, alg string) bool {
	for _, s := range sums {
		if s.Algorithm == alg {
			return true
		}
	}
	return false
}
