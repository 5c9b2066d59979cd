package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// checkDelta decides delta.226: with --base-etag it asks for a delta from
// that version (A-IM and If-None-Match, RFC 3229 §10.3), checks the 226's
// fields and Content-Digest, and, given the base's bytes, rebuilds the
// representation and verifies it against Repr-Digest.
func (a *audit) checkDelta(ctx context.Context) {
	id, base := "delta.226", a.opts.BaseETag
	cur := a.full.header.Get("ETag")
	switch {
	case base == "":
		a.s.skip(id, "no --base-etag given: no delta asked for")
		return
	case base == cur:
		a.s.skip(id, fmt.Sprintf("--base-etag %s is the current ETag: there is no newer version to send a delta for", base))
		return
	}
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	h.Set("A-IM", a.opts.IM)
	h.Set("If-None-Match", base)
	label := "GET A-IM: " + a.opts.IM
	r, err := a.do(ctx, request{label: label, method: http.MethodGet, header: h, keepAll: true})
	defer r.close()
	switch {
	case err != nil:
		a.s.fail(id, fmt.Sprintf("%s, If-None-Match: %s failed: %v; want 226 IM Used", label, base, err))
	case r.err != nil:
		a.s.fail(id, fmt.Sprintf("the 226 body broke off after %s: %v", bytesOf(r.size), r.err))
	case r.status == http.StatusNotModified:
		a.s.fail(id, fmt.Sprintf("304 Not Modified for If-None-Match: %s, but the current ETag is %s; want 226 with a delta", base, cur))
	case r.status == http.StatusOK:
		msg := fmt.Sprintf("asked for a delta from %s (A-IM: %s), got 200 with the whole representation: the origin keeps no such version, sends no deltas, or found none smaller than the whole", base, a.opts.IM)
		if !a.ownWrongFails(id, r, "the 200", msg) { // hdig get --delta gets it
			a.s.warn(id, msg)
		}
	case r.status != http.StatusIMUsed:
		a.s.fail(id, fmt.Sprintf("%s, If-None-Match: %s returned %d %s; want 226 IM Used", label, base, r.status, http.StatusText(r.status)))
	default:
		if msg := a.deltaProblem(r); msg != "" {
			a.s.fail(id, msg)
			return
		}
		a.rebuild(ctx, r)
	}
}

// deltaProblem describes what is wrong with the fields or the
// Content-Digest of a 226, or returns "".
func (a *audit) deltaProblem(r *response) string {
	offered := patch.Acceptable(patch.ParseAIM([]string{a.opts.IM}))
	ims, err := patch.ParseIM(r.header.Values("IM"))
	db := r.header.Get("Delta-Base")
	switch {
	case err != nil:
		return fmt.Sprintf("the 226 has a malformed IM field: %v; want the few instance manipulations used, e.g. IM: vcdiff (RFC 3229 §10.5.2)", err)
	case r.header.Get("ETag") == "":
		return "the 226 has no ETag; it must name the current instance (RFC 3229 §10.4.1)"
	case fetch.SameTag(r.header.Get("ETag"), a.opts.BaseETag):
		return fmt.Sprintf("the 226 has ETag %s, the version the delta is from (If-None-Match: %s); it must name the current instance, which the delta rebuilds (RFC 3229 §10.4.1): a current instance of that tag, compared weakly, is answered 304 (RFC 9110 §13.1.2)", r.header.Get("ETag"), a.opts.BaseETag)
	case len(ims) == 0:
		return "the 226 has no IM field; want the instance manipulations used, e.g. IM: vcdiff (RFC 3229 §10.5.2)"
	case r.encoding() != "":
		return fmt.Sprintf("the 226 has Content-Encoding %s for Accept-Encoding: identity, which makes it a delta between %s-coded instances (RFC 3229 §10.7.1); a compressed delta is an instance manipulation: want IM: %s, %s and no Content-Encoding (§10.7.3)",
			r.encoding(), r.encoding(), strings.Join(ims, ", "), r.encoding())
	case db != "" && db != a.opts.BaseETag:
		return fmt.Sprintf("the 226 has Delta-Base %s, but If-None-Match named only %s; want Delta-Base: %s", db, a.opts.BaseETag, a.opts.BaseETag)
	}
	for _, im := range ims {
		if !slices.Contains(offered, im) {
			return fmt.Sprintf("the 226 has IM: %s, but A-IM: %s did not offer %s (RFC 3229 §10.5.3)", strings.Join(ims, ", "), a.opts.IM, im)
		}
	}
	f := r.digests(verify.ContentDigest)
	if r.capped {
		return ""
	}
	if f.Present {
		if why := malformed(f); why != "" {
			return fmt.Sprintf("Content-Digest on the 226 is %s; want a digest of the %s of delta", why, bytesOf(r.size))
		}
		if o := compare(f, r.sums); len(o.wrong) > 0 {
			return fmt.Sprintf("the 226's Content-Digest %s does not match its %s of delta; want %s (it covers the delta as sent)", members(o.wrong), bytesOf(r.size), wantOf(o.wrong, r.sums))
		}
	}
	bad, notes := contentMD5Wrong(r)
	if bad != "" {
		return fmt.Sprintf("the 226's %s; want digests of its %s of delta (they cover the delta as sent)", bad, bytesOf(r.size))
	}
	a.noteOutside("delta.226", "the 226", "its delta", notes)
	return ""
}

// rebuild applies the 226's delta to the base version and verifies the
// result against the Repr-Digest of the current instance.
func (a *audit) rebuild(ctx context.Context, r *response) {
	id := "delta.226"
	ims, _ := patch.ParseIM(r.header.Values("IM")) // deltaProblem refused a malformed IM
	what := fmt.Sprintf("226 with IM: %s from %s (%s)", strings.Join(ims, ", "), a.opts.BaseETag, bytesOf(r.size))
	var b Base
	var err error
	if a.opts.Base != nil && !r.capped {
		b, err = a.opts.Base(a.url, a.opts.BaseETag)
	}
	switch {
	case r.capped:
		a.s.skip(id, fmt.Sprintf("%s: the delta is larger than --max-body (%s), not rebuilt", what, bytesOf(a.opts.MaxBody)))
		return
	case err != nil:
		a.s.fail(id, fmt.Sprintf("%s: cannot read the base: %v", what, err))
		return
	case b == nil:
		a.s.pass(id, what+" has consistent fields; not rebuilt: give the base's bytes with --base FILE to verify the result")
		return
	}
	defer b.Close()
	claim := r.digests(verify.ReprDigest)
	h := verify.NewHasher(verify.Algorithms)
	defer h.Close()
	if err := patch.Undo(ims, b, b.Size(), r.body(), h, patch.WithMaxOutput(a.opts.MaxBody)); err != nil {
		a.s.fail(id, undoFailure(what, err, a.opts.BaseETag))
		return
	}
	sums, n := h.Sums(), h.Written()
	if !claim.Usable() && r.header.Get("ETag") == a.full.header.Get("ETag") {
		claim = a.repr
	}
	o := compare(claim, sums)
	got, _ := lookup(sums, "sha-256")
	body, hashed := lookup(a.full.sums, "sha-256")
	et := r.header.Get("ETag")
	// Under the GET's strong ETag, the rebuilt bytes must be the GET's.
	same := strings.HasPrefix(et, `"`) && et == a.full.header.Get("ETag")
	differs := hashed && !a.full.capped && a.full.err == nil && (n != a.full.size || !bytes.Equal(got, body))
	var moved outcome           // the rebuilt bytes' digests that are not wantRef's
	var wantRef []verify.Digest // the representation's digests they were compared with
	note, judged := "", true
	switch {
	case len(o.wrong) > 0:
	case changed(a.full, r):
		// Under another ETag, strong or weak (W/"x", or the GET's own tag
		// weakened, names another representation too), the 226 says the
		// representation changed since the GET: a second GET tells
		// (versionRef), else the 226's own Repr-Digest, made up with its
		// bytes, would be all they are held to. The rebuilt bytes' digests
		// are then judged as any response's Repr-Digest is (judgeRepr).
		var ref []verify.Digest
		if ref, note, judged = a.versionRef(ctx, r); judged {
			var held bool
			rebuilt := verify.DigestField{Name: "the rebuilt bytes' digest", Present: true, Digests: sums}
			moved, wantRef, note, held = a.judgeRepr(ctx, rebuilt, ref, note)
			judged = !held
		}
	case differs && !same:
		// Under the GET's weak ETag, or no ETag on the GET to tell, other
		// bytes may be of the same meaning, or the delta may rebuild another
		// document: a second GET tells. Its bytes are the GET's again: the
		// representation is those bytes, and the rebuilt ones are not it
		// (hdig get would write them in its place). Its bytes are the
		// rebuilt ones: they are the representation now. Else not judged.
		g := a.getAgain(ctx)
		switch {
		case g == nil:
			judged = false
		case sameBytes(a.full, g):
			note = " (a second GET returned the GET's bytes again: the representation did not change)"
			wantRef = []verify.Digest{{Algorithm: "sha-256", Value: body}}
			moved = compare(verify.DigestField{Name: "the rebuilt bytes' digest", Present: true, Digests: sums}, wantRef)
		default:
			now, ok := lookup(g.sums, "sha-256")
			judged = ok && g.size == n && bytes.Equal(now, got)
		}
	}
	// The fields outside RFC 9530 that describe the representation are
	// held to the rebuilt bytes as on the GET (hdig get compares them so).
	_, bad, notes, aside := judgeOutside(sectionsOf(r, reprOutsideFields), sums)
	notes = append(notes, aside...) // none: the rebuilt bytes were hashed
	a.noteOutside(id, "the 226", "the bytes it rebuilt", notes)
	switch {
	case len(bad) > 0:
		a.s.fail(id, fmt.Sprintf("%s rebuilt %s, but %s (they cover the instance the delta rebuilds)", what, bytesOf(n), strings.Join(bad, "; ")))
	case len(o.wrong) > 0:
		a.s.fail(id, fmt.Sprintf("%s rebuilt %s that do not match Repr-Digest %s; want %s", what, bytesOf(n), members(o.wrong), wantOf(o.wrong, sums)))
	case len(moved.wrong) > 0:
		a.s.fail(id, fmt.Sprintf("%s rebuilt %s with %s, which is not the representation: want %s%s", what, bytesOf(n), members(moved.wrong), wantOf(moved.wrong, wantRef), note))
	case !judged:
		a.s.skip(id, fmt.Sprintf("%s rebuilt %s under ETag %s, but the representation changed between the GET (%s) and the 226, or after, or could not be told: not judged%s", what, bytesOf(n), et, a.full.header.Get("ETag"), note))
	case same && differs:
		a.s.fail(id, fmt.Sprintf("%s rebuilt %s that differ from the %s the GET returned under the same ETag %s; want the current instance", what, bytesOf(n), bytesOf(a.full.size), a.full.header.Get("ETag")))
	case len(o.matched) == 0:
		a.s.warn(id, fmt.Sprintf("%s rebuilt %s, but no Repr-Digest came to verify them; want Repr-Digest on the 226", what, bytesOf(n)))
	default:
		a.s.pass(id, fmt.Sprintf("%s rebuilt the representation (%s); Repr-Digest %s matches%s", what, bytesOf(n), strings.Join(o.matched, ", "), note))
	}
}

// undoFailure says why a 226 could not be rebuilt: only a delta that fails
// against the base puts the base (--base) in question, not a compression
// over it that does not decode, nor a limit.
func undoFailure(what string, err error, base string) string {
	switch {
	case errors.Is(err, patch.ErrCompression):
		return fmt.Sprintf("%s does not decode: %v; want the delta compressed as its IM says", what, err)
	case errors.Is(err, patch.ErrLimit):
		return fmt.Sprintf("%s was not rebuilt: %v", what, err)
	}
	return fmt.Sprintf("%s does not apply to the base: %v; want a delta from the version %s (is --base that version?)", what, err, base)
}
