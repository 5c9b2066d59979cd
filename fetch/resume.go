package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/internal/ownfile"
	"github.com/hdig/hdig/verify"
)

// resume continues PATH.hdig-part (-C):
//
//   - No part but PATH exists: a HEAD, and when the origin's Repr-Digest
//     (and Content-Length) match PATH hashed locally, nothing is fetched
//     (strategy not-modified, no body bytes). Otherwise a fresh download.
//   - A part with its sidecar: the missing spans are fetched as pieces with
//     If-Range and the sidecar's ETag (or its Last-Modified: ifRange); hashing continues from the saved
//     state only when the part is the very version the sidecar saw
//     (fileid.Same: size, mtime, ctime, inode); else it is hashed again
//     from its start; complete pieces beyond it are first re-checked
//     against the Content-Digest they matched.
//   - A part a zsync run left (PATH.hdig-zsync beside it): a fresh
//     download, as its blocks have holes between them.
//   - A part without a sidecar, or with one naming no strong validator:
//     "Range: bytes=LEN-" (If-Range only by a strong date), and the part
//     is hashed from its start while the rest arrives, so Repr-Digest
//     proves it; when nothing will (no digest, no --expect) and no strong
//     validator names the part's version, it is fetched again in full.
//
// A 200 (a new version, or Range ignored) discards the part. If the whole
// file then fails Repr-Digest, the earlier bytes may be bad: it is fetched
// again in full, once; a bad file is never kept.
func (d *download) resume(ctx context.Context) (*Result, error) {
	st, err := os.Lstat(d.part)
	if err == nil && !ownfile.Own(st) {
		d.warn(fmt.Sprintf("%s is not a regular file of its own (a link, or someone else's?): started over", d.part))
		return d.fresh(ctx, true)
	}
	if err != nil {
		if res, ok := d.alreadyComplete(ctx); ok {
			return res, nil
		}
		return d.fresh(ctx, true)
	}
	if _, err := os.Stat(Beside(d.path, ZsyncSidecarSuffix)); err == nil {
		d.warn("the part is a zsync run's (blocks with holes between them): started over")
		os.Remove(Beside(d.path, ZsyncSidecarSuffix))
		return d.fresh(ctx, true)
	}
	sc, why := loadSidecar(d.side, d.req.URL, sentHost(d.req), st.Size())
	if why != "" {
		// A sidecar says the part is hdig's, whose spans only it knows:
		// pieces fetched in parallel leave holes, and another URL's part
		// (a presigned URL's new query) is another file's. Without its
		// spans the part's bytes are not resumed from its end, where the
		// holes would be kept (and, with no digest, released unverified).
		d.warn(fmt.Sprintf("ignoring %s: %s: the part's spans are unknown, started over", d.side, why))
		return d.fresh(ctx, true)
	}
	if st.Size() == 0 {
		return d.fresh(ctx, true)
	}
	if sc != nil {
		d.mirrored, d.savedCoding = sc.Mirrored, sc.Coding
	}
	if err := d.openPart(false); err != nil {
		return d.result(), err
	}
	var res *Result
	if sc != nil && sc.Total > 0 && sc.ETag != "" {
		res, err = d.resumePieces(ctx, sc, sc.unchanged(st))
	} else {
		res, err = d.resumeLength(ctx, sc, st.Size())
	}
	if errors.Is(err, ErrMismatch) && d.resumed && len(d.checks) == 0 {
		d.warn("the resumed file did not match Repr-Digest (or the recorded Content-Digest): fetched again in full")
		d.prog.Restart()
		return d.fresh(ctx, true)
	}
	if d.unproven(res, err) {
		d.warn("nothing named the part's version and the proof of the whole it was spliced for did not come (a digest trailer not sent, a digest hdig cannot check): fetched again in full, not spliced")
		d.prog.Restart()
		return d.fresh(ctx, true)
	}
	return res, err
}

// unproven says a resumed whole holds a part whose version nothing named
// (download.unnamed), spliced because a digest was to prove the whole,
// and none did: its bytes may be another version's. It is never released
// so (not even "unverified"), whatever made the promise fail.
func (d *download) unproven(res *Result, err error) bool {
	return d.unnamed && d.resumed && (err == nil || errors.Is(err, ErrUnverified)) && res.Outcome() != verify.Verified
}

// resumePieces fetches what the sidecar says is missing. The saved hash
// state is used only when the part is the version the sidecar saw (its
// identity includes the ctime and inode, which an edit with the mtime put
// back still changes); else the part is hashed again from its start.
func (d *download) resumePieces(ctx context.Context, sc *sidecar, unchanged bool) (*Result, error) {
	d.total, d.etag, d.modified, d.resumed, d.savedRepr = sc.Total, sc.ETag, sc.modified(), true, sc.ReprDigest
	d.wholeContent = sc.ContentDigest // kept if the resume request fails before an answer
	algs, added := d.req.withExpected(sc.algorithms())
	wm, h := sc.Hashed, verify.NewHasher(algs)
	if added {
		d.warn("the part was hashed without an algorithm --expect names: it is hashed again from its start")
		wm = 0
	} else if !unchanged {
		d.warn("the part is not provably the version its sidecar saw (changed, or its identity is unknown): it is hashed again from its start")
		wm = 0
	} else if err := h.UnmarshalBinary(sc.HashState); err != nil {
		d.warn(fmt.Sprintf("the saved hash state is unusable (%v): the part is hashed again", err))
		wm = 0
	}
	done := d.checkKept(sc, sc.done(), wm)
	d.before, d.algs, d.hasher = done, algs, h
	d.ph = newPrefixHash(d.f, h, wm, done)
	missing := done.missing(d.total)
	if len(missing) == 0 {
		// All there: one byte confirms the version and brings Repr-Digest.
		missing = spans{{d.total - 1, d.total}}
	}
	d.parallel = d.parallelFor(d.total)
	d.pieces = planPieces(missing, d.pieceSizeFor(d.parallel))
	p0 := d.pieces[0]
	r, err := d.first(ctx, p0.start, p0.end, d.ifRange())
	if err != nil {
		return d.resumeFailed(ctx, err)
	}
	if r.resp.StatusCode != http.StatusPartialContent {
		return d.resumeWhole(ctx, r)
	}
	etag, mod := d.etag, d.modified
	d.adopt(r.resp)
	d.etag, d.modified = etag, mod
	d.resumeRef(r)
	// Another length, ETag or Repr-Digest, in this answer or a later one,
	// is another version: checkPiece (versionDiffers) restarts in full.
	return d.resumeTransfer(ctx, r)
}

// savedChecks compares with the resumed whole the members of the
// Repr-Digest the sidecar recorded (saved, of the same version) that the
// resume answer's ref does not carry usably: the origin's digest still
// proves or disproves the whole when the resume answer leaves it out. The
// saved field keeps what it was (a salvaged one proves nothing).
func savedChecks(v *verify.Verdict, saved string, ref verify.DigestField, sums []verify.Digest, p verify.Policy) {
	if saved == "" {
		return
	}
	f := verify.ParseDigestField(verify.ReprDigest, []string{saved})
	// Earlier values of a repeated key (Shadowed) go with their key.
	answered := func(x verify.Digest) bool {
		_, ok := ref.Get(x.Algorithm)
		return ok && ref.Usable()
	}
	f.Digests = slices.DeleteFunc(f.Digests, answered)
	f.Shadowed = slices.DeleteFunc(f.Shadowed, answered)
	v.Add(withReason(verify.Compare(f, sums, p), "as recorded when the part was saved")...)
}

// resumeRef takes the resume answer r (a 206 of the part's version, its
// identity adopted) as the reference the resumed whole is judged by, with
// the Content-Digest the sidecar recorded: the 200 that sent it was of
// the same version, and a 200's content is the whole, as in that run. A
// Repr-Digest contradicting the one recorded is another version, which
// checkPiece finds in r as in any later answer (versionDiffers).
func (d *download) resumeRef(r *reply) {
	d.ref = reprFields(r.resp.Header)
	d.refStatus = http.StatusOK
	if d.wholeContent != "" {
		d.ref.content = verify.ParseDigestField(verify.ContentDigest, []string{d.wholeContent})
	}
}

// resumeLength fetches from the end of a part without a sidecar,
// or with one that knows no length or no strong ETag.
func (d *download) resumeLength(ctx context.Context, sc *sidecar, size int64) (*Result, error) {
	d.resumed, d.etag, d.modified = true, "", modified{}
	if sc != nil {
		// The sidecar's proof holds here as on the path with a length
		// (resumePieces): the Repr-Digest and Content-Digest it recorded
		// judge the resumed whole (an answer of another version fails
		// them, and the whole is fetched again), and only the prefix its
		// spans and piece digests vouch for is kept.
		d.etag, d.modified, d.savedRepr, d.wholeContent = sc.ETag, sc.modified(), sc.ReprDigest, sc.ContentDigest
		if keep := d.checkKept(sc, sc.done(), 0).reach(0); keep < size {
			d.warn(fmt.Sprintf("the sidecar vouches for the first %d of the part's %d bytes: the rest is fetched again", keep, size))
			if keep == 0 {
				return d.fresh(ctx, true)
			}
			if err := d.f.Truncate(keep); err != nil {
				return d.result(), &writeError{err: err}
			}
			size = keep
		}
	}
	// Without a strong ETag the Last-Modified is the If-Range when it
	// may be (ifRange); a 206 stating another is another version
	// (versionDiffers), as one of another length is.
	r, err := d.first(ctx, size, -1, d.ifRange())
	if err != nil {
		return d.resumeFailed(ctx, err)
	}
	resp := r.resp
	if resp.StatusCode != http.StatusPartialContent {
		return d.resumeWhole(ctx, r)
	}
	cr, err := httpfield.ParseContentRange(resp.Header.Get("Content-Range"))
	if err == nil && (cr.First != size || cr.Total < 0) {
		err = fmt.Errorf("Content-Range %s, want bytes %d-…/length", cr, size)
	}
	if err != nil {
		r.close()
		return d.result(), protocolErrorf("resuming at byte %d: %v", size, err)
	}
	// The first answer's validators, when it had any, name the version:
	// the 206 is held to them (versionDiffers), its own not adopted (a
	// strong ETag of its own would be compared with itself only).
	etag, mod := d.etag, d.modified
	d.adopt(resp)
	if etag != "" || mod != (modified{}) {
		d.etag, d.modified = etag, mod
	}
	d.total = cr.Total
	if sc != nil && sc.Total >= 0 {
		// The length the part was saved for: an answer giving another is
		// of another version (checkPiece, versionDiffers), fetched again
		// in full as at any later piece.
		d.total = sc.Total
	}
	d.resumeRef(r)
	// Only a strong validator names the part's version: a strong ETag,
	// or a Last-Modified sent as If-Range (strong, §8.8.2.2). A weak
	// ETag or a weak date may stay the same while the bytes change.
	named := etag != "" || mod.ifRange
	if !d.promisesProof(resp) {
		if !named {
			// Nothing names the part's version, and nothing will prove
			// the whole: its bytes may be another version's, which
			// spliced with these would be released with nothing to tell.
			r.close()
			d.warn("nothing names the part's version (no sidecar, or one with no strong ETag or strong Last-Modified) and nothing proves the whole (no digest hdig can check): fetched again in full, not spliced")
			d.prog.Restart()
			return d.fresh(ctx, true)
		}
		d.warn(fmt.Sprintf("the first %d bytes came from the part and the origin sent no digest hdig can check: nothing proves them", size))
	}
	d.unnamed = !named
	d.before = spans{{0, size}}
	saved := verify.ParseDigestField(verify.ReprDigest, []string{d.savedRepr})
	d.startHash(d.hashAlgorithms(resp, append(d.ref.all(), saved)...), 0, d.before)
	d.parallel, d.pieces = 1, []*piece{{start: size, end: d.total}}
	return d.resumeTransfer(ctx, r)
}

// promisesProof says something is to prove the whole a resume answer
// resp (a 206, its reference taken: resumeRef) completes: a digest of the
// whole hdig computes with an algorithm the policy accepts (wholeProof's,
// the obsolete Digest, the recorded Content-Digest), or one of the whole
// announced in its trailer (whose algorithm is not known yet: unproven
// checks it came). A 206's Content-Digest covers its range only.
func (d *download) promisesProof(resp *http.Response) bool {
	return d.wholeProof() || d.proves(d.ref.legacy) || d.proves(d.ref.content) || wholeTrailer(resp)
}

// resumeTransfer runs a resumed plan whose first reply is in hand. A
// part that may hold a mirror's bytes is resumed only when the whole will
// be checked against a proof (wholeProof), as mirrors are asked only then:
// else nothing would tell a lying mirror's bytes from the origin's, and
// they would be released as "unverified". It is fetched again in full.
func (d *download) resumeTransfer(ctx context.Context, r *reply) (*Result, error) {
	if d.mirrored && !d.wholeProof() {
		r.close()
		d.warn("the part holds bytes of mirrors and nothing proves the whole now (no Repr-Digest, no --expect): fetched again in full from the origin")
		d.prog.Restart()
		return d.fresh(ctx, true)
	}
	err := d.transfer(ctx, r, modeRange)
	if errors.Is(err, errRestart) {
		d.warn(fmt.Sprintf("the file changed on the origin (%v): the part was discarded and fetched again in full", err))
		d.prog.Restart()
		return d.fresh(ctx, true)
	}
	if err != nil {
		return d.result(), err
	}
	return d.conclude()
}

// resumeWhole takes a full answer to a resume request: the part is stale.
func (d *download) resumeWhole(ctx context.Context, r *reply) (*Result, error) {
	d.warn(fmt.Sprintf("the origin answered the resume request with %d (the file changed, or Range is ignored): the part was discarded", r.resp.StatusCode))
	if err := d.openPart(true); err != nil {
		r.close()
		return d.result(), err
	}
	return d.whole(ctx, r, true)
}

// resumeFailed handles an error of a resume's first request: 416 means
// the part does not fit the representation any more.
func (d *download) resumeFailed(ctx context.Context, err error) (*Result, error) {
	var se *StatusError
	if errors.As(err, &se) && se.Code == http.StatusRequestedRangeNotSatisfiable {
		d.warn("the origin cannot serve the rest of the part (416): fetched again in full")
		return d.fresh(ctx, true)
	}
	return d.result(), err
}

// checkKept re-hashes the complete pieces beyond the hashed prefix that a
// Content-Digest verified, and drops from done those that no longer match
// and those nothing can check: a saved digest of only algorithms hdig does
// not compute, or none the policy accepts, proves nothing, so the piece is
// fetched again rather than kept unchecked.
func (d *download) checkKept(sc *sidecar, done spans, wm int64) spans {
	for _, p := range sc.Pieces {
		if p.End <= wm || p.Start < 0 || done.reach(p.Start) < p.End {
			continue
		}
		f := verify.ParseDigestField(verify.ContentDigest, []string{p.Digest})
		var algs []verify.Algorithm
		for _, x := range f.Digests {
			if a, ok := verify.Lookup(x.Algorithm); ok {
				algs = append(algs, a)
			}
		}
		sums, _, err := verify.Sum(io.NewSectionReader(d.f, p.Start, p.End-p.Start), algs)
		v := verify.Verdict{Checks: verify.Compare(f, sums, d.piecePolicy())}
		switch {
		case err != nil || len(v.Mismatches()) > 0:
			d.warn(fmt.Sprintf("bytes %d-%d of the part no longer match their Content-Digest: fetched again", p.Start, p.End-1))
		case !v.Verified(""):
			d.warn(fmt.Sprintf("bytes %d-%d of the part: no digest hdig can check in their saved Content-Digest: fetched again", p.Start, p.End-1))
		default:
			continue
		}
		done.cut(max(p.Start, wm), p.End)
	}
	return done
}

// alreadyComplete answers -C on a finished PATH without a part: a HEAD,
// and PATH hashed locally against the origin's Repr-Digest.
func (d *download) alreadyComplete(ctx context.Context) (*Result, bool) {
	// The very file looked at is hashed: a link put at PATH is not
	// followed, and a scratch PATH (-J) must be one hdig could have left.
	f, st, err := ownfile.OpenRegular(d.path, os.O_RDONLY)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if d.o.Scratch && !ownfile.Own(st) {
		return nil, false
	}
	r, err := d.send(ctx, http.MethodHead, 0, -1, "")
	if err != nil {
		return nil, false
	}
	r.close()
	resp := r.resp
	repr := reprField(resp.Header)
	if resp.StatusCode != http.StatusOK || !repr.Usable() || (resp.ContentLength >= 0 && resp.ContentLength != st.Size()) {
		return nil, false
	}
	accepted := false
	for _, x := range repr.Digests {
		if a, ok := verify.Lookup(x.Algorithm); ok && d.req.Policy.Accepts(a.Key) {
			accepted = true
		}
	}
	if !accepted {
		return nil, false
	}
	// Every digest of the HEAD hdig can compute is of FILE: Repr-Digest's
	// members, accepted or not, the obsolete Digest, the foreign fields,
	// and the user's; none may pass as not computed.
	sums, n, err := verify.Sum(f, d.req.algorithms(reprFields(resp.Header).all()...))
	v := reprVerdict(resp.Header, nil, sums, d.req)
	if err != nil || n != st.Size() || v.Outcome() != verify.Verified {
		return nil, false
	}
	// --trust-key: the HEAD's signature must prove the file; if it does
	// not, the download starts afresh and reports why.
	probe := &Result{Status: resp.StatusCode, Header: resp.Header, URL: resp.Request.URL.String(), RequestURL: d.req.URL, Verdict: v, answers: resp.Request}
	if d.req.Trust != nil && d.req.Trust.authenticate(probe, true) != nil {
		return nil, false
	}
	d.adopt(resp)
	res := d.result()
	res.Strategy, res.Pieces, res.Bytes, res.Verdict = StrategyNotModified, 0, n, v
	res.Signatures, res.Authentic, res.SignedBy = probe.Signatures, probe.Authentic, probe.SignedBy
	return res, true
}

func reprField(h http.Header) verify.DigestField {
	return verify.ParseDigestField(verify.ReprDigest, h.Values(verify.ReprDigest))
}

// reprFields are the fields of a 206 that speak for the whole
// representation: Repr-Digest, the obsolete Digest, Unencoded-Digest and
// the foreign ones (its Content-Digest and Content-MD5 cover the part only).
func reprFields(h http.Header) fields {
	f := responseFields(h)
	f.content, f.md5 = verify.DigestField{Name: verify.ContentDigest}, verify.DigestField{Name: verify.ContentMD5}
	return f
}
