package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// maxAskedSpan bounds each range range.multipart asks for.
const maxAskedSpan = 100

// checkMultipart decides range.multipart: two non-adjacent ranges asked at
// once (RFC 9110 §14.6), judged as hdig get -r A,B judges the answer: a
// 206 multipart/byteranges whose parts come in the order asked, each the
// representation's bytes at its Content-Range, any digest of a part of
// that part's bytes; a single part coalescing both (§14.6 allows it); any
// Content-Digest or Content-MD5 of the body as sent; a 200 as the
// representation. single is range.partial's answer: without a 206 there,
// the origin offers no ranges and the check skips.
func (a *audit) checkMultipart(ctx context.Context, single *response) {
	id := "range.multipart"
	full := a.full
	switch {
	case single == nil || single.status != http.StatusPartialContent:
		a.s.skip(id, "the origin answered one range with no 206 (range.partial): it offers no ranges, two are not asked")
		return
	case len(full.kept) < 3:
		a.s.skip(id, "fewer than 3 bytes of the GET body kept: no two non-adjacent ranges to ask for")
		return
	}
	asked := twoRanges(full.keptAt, int64(len(full.kept)))
	spec := fmt.Sprintf("bytes=%d-%d,%d-%d", asked[0].First, asked[0].Last, asked[1].First, asked[1].Last)
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	h.Set("Range", spec)
	r, err := a.do(ctx, request{label: "GET Range: " + spec, method: http.MethodGet, header: h, keepAll: true})
	if r != nil {
		defer r.close()
	}
	what := "the answer to Range: " + spec
	switch {
	case err != nil:
		a.s.fail(id, fmt.Sprintf("GET Range: %s failed: %v; want 206 Partial Content", spec, err))
	case r.err != nil:
		a.s.fail(id, fmt.Sprintf("the %d body for Range: %s broke off after %s: %v", r.status, spec, bytesOf(r.size), r.err))
	case r.capped:
		a.s.skip(id, fmt.Sprintf("the %d body for Range: %s is larger than --max-body (%s)", r.status, spec, bytesOf(a.opts.MaxBody)))
	case r.encoding() != "":
		a.s.skip(id, fmt.Sprintf("%s came %s-encoded for Accept-Encoding: identity: its parts are not the representation's bytes", what, r.encoding()))
	case r.status == http.StatusOK:
		a.judgeWholeAnswer(ctx, id, r, what)
	case r.status != http.StatusPartialContent:
		a.s.fail(id, fmt.Sprintf("GET Range: %s returned %d %s; want 206 Partial Content, as for one range", spec, r.status, http.StatusText(r.status)))
	default:
		a.judgeMultipart(ctx, id, r, asked, what)
	}
}

// twoRanges picks two ranges of at most maxAskedSpan bytes at the ends of
// the n bytes kept at off, with at least one byte between them (n >= 3).
func twoRanges(off, n int64) [2]httpfield.ContentRange {
	k := max(1, min(maxAskedSpan, n/8))
	return [2]httpfield.ContentRange{{First: off, Last: off + k - 1}, {First: off + n - k, Last: off + n - 1}}
}

// judgeWholeAnswer judges a 200 to the ranges asked as the representation
// (RFC 9110 §14.2 lets a server ignore Range): its digests with its bytes
// (ownWrong), its bytes with the GET's.
func (a *audit) judgeWholeAnswer(ctx context.Context, id string, r *response, what string) {
	if a.ownWrongFails(id, r, what+", a 200,", "the origin sent the whole representation") {
		return
	}
	ref, note, ok := a.versionRef(ctx, r)
	got, _ := lookup(r.sums, "sha-256")
	switch want, hashed := lookup(ref, "sha-256"); {
	case !ok || !hashed:
		a.s.skip(id, fmt.Sprintf("%s is a 200 of the whole, not compared with the representation%s", what, note))
	case !bytes.Equal(got, want):
		a.s.fail(id, fmt.Sprintf("%s is a 200 of %s that are not the representation%s; a client asking so gets other bytes", what, bytesOf(r.size), note))
	default:
		a.s.pass(id, fmt.Sprintf("%s is a 200 with the whole representation (%s), which RFC 9110 §14.2 allows%s", what, bytesOf(r.size), note))
	}
}

// judgeMultipart judges a 206 to the ranges asked.
func (a *audit) judgeMultipart(ctx context.Context, id string, r *response, asked [2]httpfield.ContentRange, what string) {
	if f := r.digests(verify.ContentDigest); f.Present {
		if why := malformed(f); why != "" {
			a.s.note(id, fmt.Sprintf("Content-Digest on %s is %s: ignored", what, why))
		} else if o := compare(f, r.sums); len(o.wrong) > 0 {
			a.s.fail(id, fmt.Sprintf("Content-Digest %s on %s does not match its %s of content as sent; want %s", members(o.wrong), what, bytesOf(r.size), wantOf(o.wrong, r.sums)))
			return
		}
	}
	bad, notes := contentMD5Wrong(r)
	if bad != "" {
		a.s.fail(id, fmt.Sprintf("%s: its Content-MD5 does not match its %s of content as sent: %s", what, bytesOf(r.size), bad))
		return
	}
	a.noteOutside(id, what, "its content as sent", notes)
	if a.reprFails(ctx, id, r, what, "the whole representation") { // as a single range's 206 (range.repr-digest)
		return
	}
	ref, note := a.full, ""
	if changed(a.full, r) {
		var why string
		if ref, note, why = a.partsRef(ctx, r, what); ref == nil {
			a.s.skip(id, why)
			return
		}
	}
	parts, err := readParts(r.header, r.body(), asked[1].Last-asked[0].First+1, len(asked))
	if err != nil {
		a.s.fail(id, fmt.Sprintf("%s: %v", what, err))
		return
	}
	if msg := a.partsProblem(parts, asked, ref); msg != "" {
		a.s.fail(id, fmt.Sprintf("%s: %s%s", what, msg, note))
		return
	}
	form := fmt.Sprintf("multipart/byteranges, %d parts in the order asked", len(parts))
	if len(parts) == 1 {
		form = fmt.Sprintf("one part, %s, coalescing both (RFC 9110 §14.6)", parts[0].cr)
	}
	a.s.pass(id, fmt.Sprintf("%s is a 206, %s, each the representation's bytes at its Content-Range%s", what, form, note))
}

// partsRef is the response whose bytes the parts of r, a 206 under
// another ETag than the GET's, are compared with, by versionRef's rule
// (another ETag alone is not taken to mean another version): a second
// GET returning the GET's bytes shows the representation did not change
// (the GET); one carrying r's ETag, that it changed to r's version (that
// GET). note says which, for the message; nil and why when neither.
func (a *audit) partsRef(ctx context.Context, r *response, what string) (ref *response, note, why string) {
	is, was := r.header.Get("ETag"), a.full.header.Get("ETag")
	g := a.getAgain(ctx)
	switch {
	case g == nil:
		return nil, "", fmt.Sprintf("%s carries ETag %s, not the GET's %s, and a second GET that would tell whether the representation changed failed: its parts were not compared", what, is, was)
	case sameBytes(g, a.full):
		return a.full, fmt.Sprintf(" (its ETag %s is not the GET's %s, but a second GET returned the GET's bytes: the representation did not change)", is, was), ""
	case g.header.Get("ETag") == is:
		return g, fmt.Sprintf(" (the representation changed to ETag %s: compared with a second GET's bytes)", is), ""
	}
	return nil, "", fmt.Sprintf("%s carries ETag %s, not the GET's %s, and a second GET returned other bytes than the GET's under ETag %s: the representation changed, its parts were not compared", what, is, was, g.header.Get("ETag"))
}

// part is one part of a 206: its Content-Range, bytes and header (nil for
// a single-part answer, whose fields are the response's).
type part struct {
	cr     httpfield.ContentRange
	b      []byte
	header textproto.MIMEHeader
}

// readParts reads the parts of a 206 to the ranges asked from its header
// h and body: at most maxParts+1 parts (one beyond those a right answer
// has is kept, for partsProblem to name), each of at most span bytes (a
// right part holds no more than from the first byte asked to the last),
// so an answer of any size costs no more memory than a right one.
func readParts(h http.Header, body io.Reader, span int64, maxParts int) ([]part, error) {
	ct := h.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ct)
	if mt != "multipart/byteranges" {
		cr, err := httpfield.ParseContentRange(h.Get("Content-Range"))
		if err != nil {
			return nil, fmt.Errorf("a single part with a malformed %v", err)
		}
		b, err := readSpan(body, span)
		if err != nil {
			return nil, fmt.Errorf("its single part, %s: %v", cr, err)
		}
		return []part{{cr: cr, b: b}}, nil
	}
	if params["boundary"] == "" {
		return nil, fmt.Errorf("Content-Type %q has no boundary (RFC 9110 §14.6)", httpfield.Clip(ct))
	}
	mr := multipart.NewReader(body, params["boundary"])
	var parts []part
	for len(parts) <= maxParts {
		p, err := mr.NextRawPart() // raw: no Content-Transfer-Encoding decoding
		if errors.Is(err, io.EOF) {
			return parts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("multipart body after %d parts: %v", len(parts), err)
		}
		cr, err := httpfield.ParseContentRange(p.Header.Get("Content-Range"))
		if err != nil {
			return nil, fmt.Errorf("multipart part %d: %v", len(parts)+1, err)
		}
		b, err := readSpan(p, span)
		if err != nil {
			return nil, fmt.Errorf("multipart part %d, %s: %v", len(parts)+1, cr, err)
		}
		parts = append(parts, part{cr: cr, b: b, header: p.Header})
	}
	return parts, nil
}

// readSpan reads a part of at most span bytes; a longer one is an error,
// read no further.
func readSpan(r io.Reader, span int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, span+1))
	if err == nil && int64(len(b)) > span {
		err = fmt.Errorf("it carries more than the %s from the first byte asked to the last", bytesOf(span))
	}
	return b, err
}

// partsProblem describes what is wrong with the parts of a 206 to asked,
// "" when nothing, as hdig get -r reads them: each part starts at the next
// range asked and ends where that one or a later one does (coalesced with
// the bytes between, RFC 9110 §14.6), none is left out; each carries the
// bytes its Content-Range announces, the representation's there (the
// GET's kept window holds both ranges), and any Content-Digest or
// Content-MD5 of its own is of its bytes. ref is the GET the bytes are
// compared with (partsRef): its window kept holds both ranges.
func (a *audit) partsProblem(parts []part, asked [2]httpfield.ContentRange, ref *response) string {
	total := a.total()
	if ref != a.full { // a second GET, read whole
		total = ref.size
	}
	next := 0
	for i, p := range parts {
		n, cr := i+1, p.cr
		switch {
		case next >= len(asked) || cr.First != asked[next].First:
			return fmt.Sprintf("part %d is %s where %s was asked next; want the parts in the order asked (RFC 9110 §14.6), as a client writing them one after another (hdig get -r) reads them", n, cr, nextAsked(asked, next))
		case cr.Total >= 0 && total >= 0 && cr.Total != total:
			return fmt.Sprintf("part %d, %s, gives a complete length of %d, but %s returned %s", n, cr, cr.Total, ref.label, bytesOf(total))
		}
		for next < len(asked) && asked[next].Last < cr.Last {
			if gap := coalescedGap(asked, next); gap > httpfield.MaxCoalescedGap {
				return fmt.Sprintf("part %d is %s, coalescing %s and %s across %d bytes not asked for; RFC 9110 §14.6 allows a gap smaller than sending the parts apart would cost, and hdig get -r refuses one over %d bytes", n, cr, asked[next], asked[next+1], gap, httpfield.MaxCoalescedGap)
			}
			next++
		}
		if next == len(asked) || asked[next].Last != cr.Last {
			return fmt.Sprintf("part %d is %s, which ends where no range asked does (%s, %s)", n, cr, asked[0], asked[1])
		}
		next++
		if int64(len(p.b)) != cr.Len() {
			return fmt.Sprintf("part %d's Content-Range %s announces %s, but it carried %s", n, cr, bytesOf(cr.Len()), bytesOf(int64(len(p.b))))
		}
		at := cr.First - ref.keptAt
		if at+cr.Len() > int64(len(ref.kept)) { // a second GET shorter than the GET
			return fmt.Sprintf("part %d, %s, is beyond the end of the %s %s returned", n, cr, bytesOf(ref.size), ref.label)
		}
		if d := firstDifference(p.b, ref.kept[at:at+cr.Len()]); d >= 0 {
			return fmt.Sprintf("part %d, %s, differs from those bytes of the %s body at offset %d; want the same bytes", n, cr, ref.label, cr.First+int64(d))
		}
		if bad := partDigestWrong(p); bad != "" {
			return fmt.Sprintf("part %d, %s: %s", n, cr, bad)
		}
	}
	if next < len(asked) {
		return fmt.Sprintf("the 206 left out %s of the ranges asked", asked[next])
	}
	return ""
}

// coalescedGap is the number of bytes between range i asked and the
// next one, which a part coalescing them carries unasked (0 after the
// last).
func coalescedGap(asked [2]httpfield.ContentRange, i int) int64 {
	if i+1 >= len(asked) {
		return 0
	}
	return asked[i+1].First - asked[i].Last - 1
}

// nextAsked names the range asked next, in messages.
func nextAsked(asked [2]httpfield.ContentRange, next int) string {
	if next >= len(asked) {
		return "no more bytes"
	}
	return asked[next].String()
}

// partDigestWrong describes a part's own Content-Digest or Content-MD5
// (RFC 2046 body-part fields, which hdig get compares with the part's
// bytes) that does not match its bytes, "" otherwise.
func partDigestWrong(p part) string {
	h := http.Header(p.header)
	fs := []verify.DigestField{verify.ParseDigestField(verify.ContentDigest, h.Values(verify.ContentDigest)), verify.ParseContentMD5(h)}
	sums, _, _ := verify.Sum(bytes.NewReader(p.b), verify.All)
	var bad []string
	for _, f := range fs {
		if o := compare(f, sums); len(o.wrong) > 0 {
			bad = append(bad, fmt.Sprintf("its %s %s does not match its %s; want %s", f.Name, members(o.wrong), bytesOf(int64(len(p.b))), wantOf(o.wrong, sums)))
		}
	}
	return strings.Join(bad, "; ")
}
