package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// imUsed rebuilds the current instance from a 226: Content-Digest is
// checked over the delta bytes, Repr-Digest over the rebuilt instance.
func (d *deltaReceiver) imUsed(ctx context.Context, resp *http.Response, sink Sink, res *Result) error {
	ims, err := patch.ParseIM(resp.Header.Values("IM"))
	if err != nil {
		return fmt.Errorf("%w: %v", errDeltaFailed, err)
	}
	if err := d.checkIMs(ims); err != nil {
		return err
	}
	if ce := httpfield.ContentCodings(resp.Header.Values("Content-Encoding")); len(ce) > 0 {
		// RFC 3229 §10.7: the delta is between instances so coded; the
		// versions cached are identities. A compressed delta is an IM.
		return fmt.Errorf("%w: 226 with Content-Encoding %s: its delta is between %s-coded instances (RFC 3229 §10.7.1), and the cached bases are not coded",
			errDeltaFailed, strings.Join(ce, ", "), strings.Join(ce, ", "))
	}
	if res.ETag == "" {
		return fmt.Errorf("%w: 226 without ETag (RFC 3229 §10.4.1)", errDeltaFailed)
	}
	delta := resp.Header.Get("Delta-Base")
	e, err := d.base(delta)
	if err != nil {
		return err
	}
	b, err := d.req.Delta.Cache.Open(e)
	if err != nil {
		return fmt.Errorf("%w: base %s: %v", errDeltaFailed, e.ETag, err)
	}
	defer b.Close()
	hdr := responseFields(resp.Header)
	content := verify.NewHasher(withTrailer(d.req, resp, d.req.algorithms(hdr.content, hdr.md5)))
	defer content.Close()
	repr := verify.NewHasher(withTrailer(d.req, resp, d.req.algorithms(reprFields(resp.Header).all()...)))
	defer repr.Close()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := newIdleReader(resp.Body, d.c.timeout, cancel)
	defer idle.stop()
	counted := &countingReader{r: idle}
	capped := &capReader{r: counted, lim: d.req.Limits}
	body := io.TeeReader(capped, content)
	// Rebuilt bytes are bounded by what came in: the ratio times the
	// delta's bytes, beside the base once (a few delta bytes may copy it
	// again and again: checkGiven).
	out := &boundedWriter{w: io.MultiWriter(sinkWriter{sink}, repr), lim: d.req.Limits, expands: true,
		in: counted.count, given: b.Size()}
	err = patch.Undo(ims, b, b.Size(), body, out)
	if err == nil {
		_, err = io.Copy(io.Discard, body)
	}
	res.Strategy, res.IM, res.DeltaBase = StrategyDelta, ims, e.ETag
	res.Bytes, res.Received = out.n, counted.count()
	var le *limitError
	if errors.As(out.err, &le) && le.ratio {
		return fmt.Errorf("%w: applying %s to %s: %v", errDeltaFailed, strings.Join(ims, ", "), e.ETag, le)
	} else if out.err != nil {
		return out.err // over --max-filesize: the whole would be too
	} else if capped.err != nil {
		return capped.err
	}
	if err != nil {
		err = d.c.bodyError(ctx, err, counted.count(), resp.ContentLength)
		if errors.Is(err, ErrProtocol) {
			return fmt.Errorf("%w: applying %s to %s: %v", errDeltaFailed, strings.Join(ims, ", "), e.ETag, err)
		}
		return err
	}
	res.Trailer = resp.Trailer
	tr := responseFields(resp.Trailer)
	var v verify.Verdict
	for _, f := range []verify.DigestField{hdr.content, tr.content, hdr.md5, tr.md5} {
		v.Warn(f.Warnings()...)
		v.Add(verify.Compare(f, content.Sums(), d.req.Policy)...)
	}
	agree(&v, hdr.content, tr.content)
	rv := reprVerdict(resp.Header, resp.Trailer, repr.Sums(), d.req)
	v.Add(rv.Checks...)
	v.Warn(rv.Warnings...)
	res.Verdict = v
	res.setSHA256(repr.Sums())
	// A rebuilt instance nothing proves (no Repr-Digest: the delta's
	// Content-Digest covers the delta only) is, under --require-digest, a
	// delta that could not be used, as a 304's unproven cached copy is
	// (notModified): the whole may be proven by its own Content-Digest.
	if err := verdictError(res, d.req, false); errors.Is(err, ErrMismatch) || errors.Is(err, ErrUnverified) {
		return fmt.Errorf("%w: %v", errDeltaFailed, err)
	} else if err != nil {
		return err
	}
	return nil
}

// checkIMs accepts an IM list only if we asked for each and can undo it
// (patch.CheckIM: one delta coding, then one compression), before the
// body is read.
func (d *deltaReceiver) checkIMs(ims []string) error {
	if len(ims) == 0 {
		return fmt.Errorf("%w: 226 without IM (RFC 3229 §10.5.2)", errDeltaFailed)
	}
	for _, im := range ims {
		if !slices.Contains(d.aim, im) {
			return fmt.Errorf("%w: IM %s was not in our A-IM (RFC 3229 §10.5.3)", errDeltaFailed, im)
		}
	}
	if err := patch.CheckIM(ims); err != nil {
		return fmt.Errorf("%w: IM %s: %v", errDeltaFailed, strings.Join(ims, ", "), err)
	}
	return nil
}

// reprVerdict checks Repr-Digest (or the obsolete Digest) of header and
// trailer, the foreign fields and the user's digests against digests of
// the rebuilt representation.
func reprVerdict(h, t http.Header, sums []verify.Digest, req *Request) verify.Verdict {
	var v verify.Verdict
	p := req.Policy
	hdr, tr := reprFields(h), reprFields(t)
	for i, f := range []verify.DigestField{hdr.repr, tr.repr} {
		where := ""
		if i == 1 {
			where = " (trailer)" // no signature over the header's field counts for it
		}
		v.Warn(suffix(f.Warnings(), where)...)
		v.Add(label(verify.Compare(f, sums, p), where)...)
	}
	// The obsolete Digest, beside Repr-Digest or not, and in the trailer
	// too: a member that does not match fails as Repr-Digest's would.
	for i, f := range []verify.DigestField{hdr.legacy, tr.legacy} {
		where := ""
		if i == 1 {
			where = " (trailer)"
		}
		v.Warn(suffix(f.Warnings(), where)...)
		v.Add(label(verify.Compare(f, sums, p), where)...)
	}
	outsideChecks(&v, hdr, tr, reprBasis{sums: sums, content: true, coding: codingOf(h)}, req)
	agree(&v, hdr.repr, tr.repr)
	if !hdr.repr.Present && !tr.repr.Present && !hdr.legacy.Present && !tr.legacy.Present {
		v.Warn("the origin sent no Repr-Digest: nothing it sent proves the whole representation")
	}
	return v
}
