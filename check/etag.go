package check

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/verify"
)

// statement is what one response says about the representation its ETag
// names: its Repr-Digest, or, without one, the digests of a body read whole.
type statement struct {
	label    string
	etag     string
	encoding string
	sums     []verify.Digest
	// own marks responses whose Repr-Digest has a check of its own
	// (head.repr-digest, range.repr-digest): they count only for stability.
	own bool
}

// statementOf returns the statement of a response, or false.
func statementOf(r *response, own bool) (statement, bool) {
	if r == nil || (r.status != 200 && r.status != 206) || r.header.Get("ETag") == "" {
		return statement{}, false
	}
	st := statement{label: r.label, etag: r.header.Get("ETag"), encoding: r.encoding(), own: own}
	if ce := st.encoding; ce != "" {
		st.label += " (Content-Encoding: " + ce + ")"
	}
	if f := r.digests(verify.ReprDigest); f.Usable() {
		st.sums = f.Digests
	} else if !own && r.status == 200 && !r.capped && r.err == nil {
		st.sums = r.sums
	}
	return st, len(st.sums) > 0
}

// checkETags decides etag.consistency. Responses with the same strong ETag
// must carry the same representation, so the same Repr-Digest (RFC 9110
// §8.8.3): a conflict fails. The same Repr-Digest under a different ETag on
// the next request means the ETag is unstable: If-None-Match, If-Range and
// deltas will miss, so it warns.
func (a *audit) checkETags(ctx context.Context, rs ...checked) {
	id := "etag.consistency"
	if a.full.header.Get("ETag") == "" {
		a.s.skip(id, "GET 200 carries no ETag")
		return
	}
	compared, failed := a.notModifiedWrong(ctx)
	if failed {
		return
	}
	var sts []statement
	for _, c := range rs {
		if st, ok := statementOf(c.r, c.own); ok && !strings.HasPrefix(st.etag, "W/") {
			if c.r == a.full {
				st.sums = a.withBody(st.sums)
			}
			sts = append(sts, st)
		}
	}
	var unstable string
	// compared counts what could have failed: the If-None-Match answer's
	// Repr-Digest, pairs under one ETag that share an algorithm.
	for i := range sts {
		for j := i + 1; j < len(sts); j++ {
			x, y := sts[i], sts[j]
			d1, d2, differ := conflict(x.sums, y.sums)
			switch {
			case x.etag == y.etag && differ && !x.own && !y.own:
				a.s.fail(id, fmt.Sprintf("ETag %s names different representations: %s on %s, %s on %s; want a distinct strong ETag for each (e.g. per Content-Encoding)", x.etag, member(d1), x.label, member(d2), y.label))
				return
			case x.etag == y.etag && !x.own && !y.own && d1.Algorithm != "":
				compared = true
			case x.etag != y.etag && x.encoding == y.encoding && !differ && d1.Algorithm != "" && unstable == "":
				unstable = fmt.Sprintf("ETag %s on %s became %s on %s, but Repr-Digest stayed %s; an unchanged representation should keep its ETag (If-None-Match, If-Range and deltas will miss)", x.etag, x.label, y.etag, y.label, member(d1))
			}
		}
	}
	n := 0
	for _, st := range sts {
		if st.etag == a.full.header.Get("ETag") {
			n++
		}
	}
	switch {
	case unstable != "":
		a.s.warn(id, unstable)
	case len(sts) == 0:
		a.s.skip(id, "no strong ETag with a known representation digest to compare")
	case !compared:
		a.s.skip(id, fmt.Sprintf("no two responses with one strong ETag stated a digest of one algorithm: nothing compared (%s)", statedBy(sts)))
	default:
		a.s.pass(id, fmt.Sprintf("%s with ETag %s carry the same Repr-Digest; no ETag names two representations", plural(n, "response"), a.full.header.Get("ETag")))
	}
}

// withBody adds to the GET's Repr-Digest the digests of its body, read
// whole, of the algorithms it does not name: a response under its ETag
// stating one of those (a Want-Repr-Digest answer) is compared with them.
func (a *audit) withBody(sums []verify.Digest) []verify.Digest {
	out := append([]verify.Digest(nil), sums...)
	if a.full.capped || a.full.err != nil {
		return out
	}
	for _, d := range a.full.sums {
		if _, ok := lookup(sums, d.Algorithm); !ok {
			out = append(out, d)
		}
	}
	return out
}

// statedBy names the statements, in messages: "GET (ETag "a", sha-256)".
func statedBy(sts []statement) string {
	var out []string
	for _, st := range sts {
		var algs []string
		for _, d := range st.sums {
			if !slices.Contains(algs, d.Algorithm) {
				algs = append(algs, d.Algorithm)
			}
		}
		out = append(out, fmt.Sprintf("%s: ETag %s, %s", st.label, st.etag, strings.Join(algs, ", ")))
	}
	return strings.Join(out, "; ")
}

// checked is a response for checkETags, with whether its Repr-Digest has a
// check of its own.
type checked struct {
	r   *response
	own bool
}

// conflict compares the algorithms two lists share (verify.Agree): it
// returns the first pair with different values and true, else the first
// shared pair (zero when they share no algorithm) and false.
func conflict(xs, ys []verify.Digest) (x, y verify.Digest, differ bool) {
	a := verify.DigestField{Name: verify.ReprDigest, Present: true, Digests: xs}
	b := verify.DigestField{Name: verify.ReprDigest, Present: true, Digests: ys}
	if cs := verify.Agree(a, b); len(cs) > 0 {
		c := cs[0]
		return verify.Digest{Algorithm: c.Algorithm, Value: c.Expected}, verify.Digest{Algorithm: c.Algorithm, Value: c.Actual}, true
	}
	for _, d := range xs {
		if v, found := lookup(ys, d.Algorithm); found {
			return d, verify.Digest{Algorithm: d.Algorithm, Value: v}, false
		}
	}
	return x, y, false
}

// notModifiedWrong asks for the GET's representation with If-None-Match:
// its strong ETag and fails etag.consistency, reporting true, when the 304
// that answers carries a Repr-Digest (or a field outside RFC 9530 about
// the representation) that is not of the representation that ETag names:
// hdig get, holding that version, compares the 304's digests with it and
// fails. They are judged as any other response's Repr-Digest is
// (versionRef, judgeRepr); what could not be judged is said with the
// check's result. A 200 (the condition ignored) is allowed, and its
// digests are judged alike: hdig get gets it and compares them. A weak
// ETag names equivalent representations, whose bytes may differ: not
// asked. compared says whether the answer, under that ETag, carried a
// Repr-Digest of an algorithm the representation's digests have.
func (a *audit) notModifiedWrong(ctx context.Context) (compared, failed bool) {
	id, et := "etag.consistency", a.full.header.Get("ETag")
	if strings.HasPrefix(et, "W/") {
		return false, false
	}
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	h.Set("If-None-Match", et)
	what := "the 304 for If-None-Match: " + et
	r, err := a.do(ctx, request{label: "GET If-None-Match: " + et, method: http.MethodGet, header: h, headersOnly: true})
	switch {
	case err != nil || r.status != http.StatusNotModified && r.status != http.StatusOK:
		return false, false
	case r.status == http.StatusOK: // the condition ignored: allowed, but its digests are compared too
		what = "the 200 for If-None-Match: " + et
	case !fetch.SameTag(r.header.Get("ETag"), et) && r.header.Get("ETag") != "":
		// The representation unchanged, named by another tag: unstable.
		a.s.note(id, fmt.Sprintf("%s carries ETag %s; want the ETag a 200 would carry (RFC 9110 §15.4.5): a cache holding %s cannot use it (RFC 9111 §4.3.4), and hdig get fetches again", what, r.header.Get("ETag"), et))
	case r.header.Get("ETag") == "":
		// RFC 9110 §15.4.5: a 304 MUST carry the ETag a 200 would.
		a.s.note(id, fmt.Sprintf("%s carries no ETag; want %s, the ETag a 200 would carry (RFC 9110 §15.4.5): a cache cannot tell which stored response it validates (RFC 9111 §4.3.4)", what, et))
	}
	if r.status == http.StatusOK && a.contentFails(ctx, id, r, what) {
		return false, true
	}
	if a.reprFails(ctx, id, r, what, "the representation its ETag names") {
		return false, true
	}
	f := r.digests(verify.ReprDigest)
	tag := r.header.Get("ETag") // none: the one asked (noted above)
	return (tag == et || tag == "") && f.Usable() && len(compare(f, a.reprSums()).matched) > 0, false
}

// contentFails fails id when r, a 200 asked for in no coding, carries a
// Content-Digest or Content-MD5 that does not match its content, the
// representation (identityContentWrong), and reports whether it did; what
// was not judged is said with id's result. what names r.
func (a *audit) contentFails(ctx context.Context, id string, r *response, what string) bool {
	ref, note, ok := a.versionRef(ctx, r)
	if !ok { // said here: the Repr-Digest's path says only of a Repr-Digest
		fs := bothSections(r, contentMD5Of)
		if f := r.digests(verify.ContentDigest); f.Present {
			fs = append(fs, f)
		}
		a.notJudged(id, what, fs, note)
		return false
	}
	msg, held := a.identityContentWrong(ctx, id, what, r, ref, note)
	switch {
	case held:
		a.s.note(id, fmt.Sprintf("%s: Content-Digest not judged%s", what, msg))
	case msg != "":
		a.s.fail(id, fmt.Sprintf("%s: %s", what, msg))
		return true
	}
	return false
}
