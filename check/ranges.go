package check

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// checkRange asks for a slice of the representation and decides
// range.partial, range.content-digest and range.repr-digest. It returns
// the response, nil when there was none.
func (a *audit) checkRange(ctx context.Context) *response {
	full := a.full
	if !full.capped && full.size == 0 {
		a.skipRange("the representation is empty: no range to ask for")
		return nil
	}
	if len(full.kept) == 0 {
		a.skipRange("no bytes of the GET body were kept to compare with")
		return nil
	}
	first, last := full.keptAt, full.keptAt+int64(len(full.kept))-1
	spec := fmt.Sprintf("bytes=%d-%d", first, last)
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	h.Set("Range", spec)
	keep := func(int64) (int64, int64) { return 0, 2 * rangeSpan }
	r, err := a.do(ctx, request{label: "GET Range: " + spec, method: http.MethodGet, header: h, pick: keep})
	if !a.checkPartial(r, err, first, last) {
		return r
	}
	a.checkRangeContent(r)
	a.checkRangeRepr(ctx, r)
	return r
}

// skipRange skips the range checks not yet decided.
func (a *audit) skipRange(msg string) {
	a.s.skipUndecided(msg, "range.partial", "range.content-digest", "range.repr-digest")
}

// checkPartial decides range.partial; it reports whether the response is
// a usable 206 for the other range checks.
func (a *audit) checkPartial(r *response, err error, first, last int64) bool {
	id, spec := "range.partial", fmt.Sprintf("bytes=%d-%d", first, last)
	switch {
	case err != nil:
		a.s.fail(id, fmt.Sprintf("GET Range: %s failed: %v; want 206 Partial Content", spec, err))
	case r.err != nil:
		a.s.fail(id, fmt.Sprintf("the %d body for Range: %s broke off after %s: %v", r.status, spec, bytesOf(r.size), r.err))
	case r.status == http.StatusOK && strings.Contains(a.full.header.Get("Accept-Ranges"), "bytes"):
		a.s.warn(id, fmt.Sprintf("GET 200 advertises Accept-Ranges: bytes, but Range: %s got 200 with the whole body; want 206", spec))
		return true // a 200 all the same: its digests are judged as a 206's would be
	case r.status == http.StatusOK:
		msg := fmt.Sprintf("the origin ignored Range: %s (200, no Accept-Ranges: bytes); range support is optional", spec)
		a.ownWrongFails("range.repr-digest", r, "the 200", msg) // hdig get -r gets it
		a.skipRange(msg)
		return false
	case r.status != http.StatusPartialContent:
		a.s.fail(id, fmt.Sprintf("GET Range: %s returned %d %s; want 206 Partial Content", spec, r.status, http.StatusText(r.status)))
	default:
		if msg := a.partialProblem(r, first, last); msg != "" {
			a.s.fail(id, msg)
			return true
		}
		a.s.pass(id, fmt.Sprintf("206 for Range: %s has Content-Range %s and the %s of the full body", spec, r.header.Get("Content-Range"), bytesOf(r.size)))
		return true
	}
	a.s.skip("range.content-digest", "no 206 response")
	a.s.skip("range.repr-digest", "no 206 response")
	return false
}

// partialProblem describes what is wrong with a 206, or returns "".
func (a *audit) partialProblem(r *response, first, last int64) string {
	cr := r.header.Get("Content-Range")
	if strings.HasPrefix(r.header.Get("Content-Type"), "multipart/byteranges") {
		return "the 206 for a single range is multipart/byteranges; want one part with a Content-Range field (RFC 9110 §14.6)"
	}
	c, err := httpfield.ParseContentRange(cr)
	want := fmt.Sprintf("bytes %d-%d/%d", first, last, a.total())
	if a.total() < 0 {
		want = fmt.Sprintf("bytes %d-%d/*", first, last)
	}
	switch {
	case err != nil:
		return fmt.Sprintf("the 206 has a malformed %v; want %s", err, want)
	case c.First != first || c.Last != last:
		return fmt.Sprintf("the 206 for bytes=%d-%d has Content-Range %s; want %s", first, last, cr, want)
	case c.Total >= 0 && a.total() >= 0 && c.Total != a.total():
		return fmt.Sprintf("Content-Range %s gives a complete length of %d, but GET returned %s; want %s", cr, c.Total, bytesOf(a.total()), want)
	case r.size != last-first+1:
		return fmt.Sprintf("Content-Range %s announces %s, but the 206 carried %s", cr, bytesOf(last-first+1), bytesOf(r.size))
	}
	if i := firstDifference(r.kept, a.full.kept); i >= 0 {
		return fmt.Sprintf("the 206 for bytes=%d-%d differs from those bytes of the GET body at offset %d; want the same bytes", first, last, first+int64(i))
	}
	return ""
}

// total is the length of the representation: the bytes of the full GET,
// or its Content-Length when the body was over --max-body.
func (a *audit) total() int64 {
	if !a.full.capped {
		return a.full.size
	}
	n, err := strconv.ParseInt(a.full.header.Get("Content-Length"), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// firstDifference returns the first index where a and b differ, or -1 when
// they are equal.
func firstDifference(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// checkRangeContent decides range.content-digest: a 206's Content-Digest
// covers the bytes of that message only.
func (a *audit) checkRangeContent(r *response) {
	id, the, what := "range.content-digest", rangeAnswer(r), "partial content"
	if r.status == http.StatusOK {
		what = "content"
	}
	f := r.digests(verify.ContentDigest)
	bad, notes := contentMD5Wrong(r)
	if bad != "" {
		a.s.fail(id, fmt.Sprintf("%s's Content-MD5 does not match its %s of %s: %s", the, bytesOf(r.size), what, bad))
		return
	}
	a.noteOutside(id, the, "its "+what, notes)
	switch {
	case !f.Present:
		a.s.skip(id, the+" carries no Content-Digest (it is optional)")
		return
	case malformed(f) != "":
		a.s.fail(id, fmt.Sprintf("Content-Digest on %s is %s; want a digest of its %s", the, malformed(f), bytesOf(r.size)))
		return
	}
	o := compare(f, r.sums)
	if len(o.wrong) > 0 && r.status != http.StatusOK && allEqualIn(f, a.full.sums) {
		a.s.fail(id, fmt.Sprintf("the 206's Content-Digest %s is the digest of the whole representation; it must cover only the %s of the 206: want %s", members(o.wrong), bytesOf(r.size), wantOf(o.wrong, r.sums)))
		return
	}
	a.checkMatch(id, r, f, what)
}

// checkRangeRepr decides range.repr-digest: a 206's Repr-Digest still
// covers the whole representation.
func (a *audit) checkRangeRepr(ctx context.Context, r *response) {
	id, the := "range.repr-digest", rangeAnswer(r)
	f := r.digests(verify.ReprDigest)
	if a.outsideFails(ctx, id, r, the, "the whole representation") {
		return
	}
	// Compared with the GET's bytes when they were hashed, whether or not
	// the GET carries a Repr-Digest (reprSums): hdig get resuming with a
	// 206 compares its Repr-Digest with the whole.
	switch {
	case !f.Present && a.repr.Usable():
		a.s.warn(id, fmt.Sprintf("%s carries no Repr-Digest but GET 200 does (%s); want the same value", the, keysOf(a.repr)))
		return
	case !f.Present:
		a.s.skip(id, fmt.Sprintf("neither GET 200 nor %s carries a usable Repr-Digest", the))
		return
	case malformed(f) != "" && !a.repr.Usable(): // ignored, as the GET's: absent on both
		a.s.skip(id, fmt.Sprintf("neither GET 200 nor %s carries a usable Repr-Digest (its is %s)", the, malformed(f)))
		return
	case malformed(f) != "":
		a.s.fail(id, fmt.Sprintf("Repr-Digest on %s is %s; want %s", the, malformed(f), a.reprWanted()))
		return
	case len(a.reprSums()) == 0:
		a.s.skip(id, "GET 200 has no usable Repr-Digest, and its body was not hashed, to compare with")
		return
	}
	ref, note, ok := a.versionRef(ctx, r)
	if !ok {
		a.s.skip(id, fmt.Sprintf("%s's Repr-Digest not judged%s", the, note))
		return
	}
	o, against, note, held := a.judgeRepr(ctx, f, ref, note)
	switch {
	case held:
		a.s.skip(id, fmt.Sprintf("%s's Repr-Digest not judged%s", the, note))
	case len(o.wrong) > 0 && r.status != http.StatusOK && allEqualIn(f, r.sums):
		a.s.fail(id, fmt.Sprintf("the 206's Repr-Digest %s covers only the %s of partial content; it must cover the whole representation: want %s%s", members(o.wrong), bytesOf(r.size), wantOf(o.wrong, against), note))
	case len(o.wrong) > 0:
		a.s.fail(id, fmt.Sprintf("%s's Repr-Digest %s does not match the representation the GET returned; want %s%s", the, members(o.wrong), wantOf(o.wrong, against), note))
	case len(o.matched) == 0:
		a.s.skip(id, fmt.Sprintf("%s's Repr-Digest (%s) and GET's (%s) share no algorithm", the, keysOf(f), keysOf(a.repr)))
	default:
		a.s.pass(id, fmt.Sprintf("%s's Repr-Digest matches the representation the GET returned (%s): it covers the whole representation%s", the, strings.Join(o.matched, ", "), note))
	}
}

// rangeAnswer names the answer to the range request in messages: a 206,
// or a 200 that sent the whole body instead (range.partial warns).
func rangeAnswer(r *response) string {
	if r.status == http.StatusOK {
		return "the whole-body 200"
	}
	return "the 206"
}
