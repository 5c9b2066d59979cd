package check

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/hdig/hdig/verify"
)

// checkHead sends a HEAD like the full GET and decides head.repr-digest and
// head.content-digest. It returns the response, nil when there was none.
func (a *audit) checkHead(ctx context.Context) *response {
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	r, err := a.do(ctx, request{label: "HEAD", method: http.MethodHead, header: h, headersOnly: true})
	switch {
	case err != nil:
		a.s.fail("head.repr-digest", fmt.Sprintf("HEAD failed: %v; want it answered like GET", err))
		a.s.skip("head.content-digest", "HEAD failed")
		return nil
	case r.status != http.StatusOK:
		a.s.fail("head.repr-digest", fmt.Sprintf("HEAD returned %d %s but GET 200; want HEAD answered like GET", r.status, http.StatusText(r.status)))
		a.s.skip("head.content-digest", "HEAD did not return 200")
		return r
	}
	a.checkHeadRepr(ctx, r)
	a.checkHeadContent(r)
	return r
}

// checkHeadRepr decides head.repr-digest: the HEAD's Repr-Digest describes
// the representation a GET returns, not the empty content of the HEAD.
func (a *audit) checkHeadRepr(ctx context.Context, r *response) {
	id := "head.repr-digest"
	f := r.digests(verify.ReprDigest)
	if a.outsideFails(ctx, id, r, "HEAD 200", "the GET's representation") {
		return
	}
	// Compared with the GET's bytes when they were hashed, whether or not
	// the GET carries a Repr-Digest (reprSums).
	switch {
	case !f.Present && a.repr.Usable() && len(a.full.header.Values(verify.ReprDigest)) == 0:
		// Computed while the content is sent: RFC 9110 §9.3.2 lets a HEAD
		// omit a field determined while generating content.
		a.s.skip(id, fmt.Sprintf("HEAD 200 carries no Repr-Digest; the GET sends it only as a trailer (%s), which a HEAD, with no content, need not carry", keysOf(a.repr)))
		return
	case !f.Present && a.repr.Usable():
		a.s.warn(id, fmt.Sprintf("HEAD 200 carries no Repr-Digest but GET does (%s); want the same fields as GET", keysOf(a.repr)))
		return
	case !f.Present:
		a.s.skip(id, "neither GET 200 nor HEAD 200 carries a usable Repr-Digest")
		return
	case malformed(f) != "" && !a.repr.Usable(): // ignored, as the GET's: absent on both
		a.s.skip(id, fmt.Sprintf("neither GET 200 nor HEAD 200 carries a usable Repr-Digest (HEAD's is %s)", malformed(f)))
		return
	case malformed(f) != "":
		a.s.fail(id, fmt.Sprintf("Repr-Digest on HEAD 200 is %s; want %s", malformed(f), a.reprWanted()))
		return
	case len(a.reprSums()) == 0:
		a.s.skip(id, "GET 200 has no usable Repr-Digest, and its body was not hashed, to compare with")
		return
	}
	ref, note, ok := a.versionRef(ctx, r)
	if !ok {
		a.s.skip(id, "HEAD Repr-Digest not judged"+note)
		return
	}
	o, against, note, held := a.judgeRepr(ctx, f, ref, note)
	switch {
	case held:
		a.s.skip(id, "HEAD Repr-Digest not judged"+note)
	case len(o.wrong) > 0:
		msg := fmt.Sprintf("HEAD Repr-Digest %s does not match the representation the GET returned; want %s%s", members(o.wrong), wantOf(o.wrong, against), note)
		if allEqualIn(f, emptySums()) {
			msg += "; it is the digest of empty content, but it must cover the representation a GET returns"
		}
		a.s.fail(id, msg)
	case len(o.matched) == 0:
		a.s.skip(id, fmt.Sprintf("HEAD Repr-Digest (%s) and GET's (%s) share no algorithm", keysOf(f), keysOf(a.repr)))
	default:
		a.s.pass(id, fmt.Sprintf("HEAD Repr-Digest matches the representation the GET returned (%s)%s", strings.Join(o.matched, ", "), note))
	}
}

// checkHeadContent decides head.content-digest: a HEAD has no content, so a
// Content-Digest, if any, is the digest of empty content (App. B.2).
func (a *audit) checkHeadContent(r *response) {
	id := "head.content-digest"
	f := r.digests(verify.ContentDigest)
	empty := emptySums()
	switch {
	case !f.Present:
		a.s.pass(id, "HEAD 200 carries no Content-Digest")
		return
	case malformed(f) != "":
		a.s.fail(id, fmt.Sprintf("Content-Digest on HEAD 200 is %s; want none, or the digest of empty content", malformed(f)))
		return
	}
	o := compare(f, empty)
	if len(o.wrong) == 0 {
		if len(o.matched) == 0 {
			a.s.skip(id, fmt.Sprintf("HEAD Content-Digest uses no algorithm hdig can compute (%s)", keysOf(f)))
			return
		}
		a.s.pass(id, "HEAD Content-Digest is the digest of empty content")
		return
	}
	msg := fmt.Sprintf("HEAD Content-Digest %s is not the digest of empty content; want %s or no Content-Digest", members(o.wrong), wantOf(o.wrong, empty))
	if allEqualIn(f, a.full.sums) {
		msg += " (it is the digest of the GET's body)"
	}
	a.s.fail(id, msg)
}

// changed reports whether two responses carry different entity tags, so
// that the representation may have changed between them.
func changed(x, y *response) bool {
	ex, ey := x.header.Get("ETag"), y.header.Get("ETag")
	return ex != "" && ey != "" && ex != ey
}
