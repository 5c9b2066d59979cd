package fetch

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// ContentRange and ByteRange are httpfield's: one grammar for the client,
// the origin and the audit.
type (
	ContentRange = httpfield.ContentRange
	ByteRange    = httpfield.ByteRange
)

// within reports whether bytes first..last lie in ranges asked of a
// representation of total bytes, but for gaps between them of at most
// httpfield.MaxCoalescedGap bytes (a server may coalesce ranges across a
// small gap, RFC 9110 §14.6): the part starts in a range asked, and each
// gap ends where one starts.
func within(asked []ByteRange, first, last, total int64) bool {
	for start := first; first <= last; {
		moved := false
		for _, r := range asked {
			a, b, ok := r.Resolve(total)
			if ok && a <= first && first <= b {
				first, moved = b+1, true
			}
		}
		if !moved && (first == start || !gapTo(asked, &first, last, total)) {
			return false
		}
	}
	return true
}

// gapTo moves *first over a gap to the nearest range asked that starts
// at most httpfield.MaxCoalescedGap bytes on and no later than last.
func gapTo(asked []ByteRange, first *int64, last, total int64) bool {
	next := int64(-1)
	for _, r := range asked {
		a, _, ok := r.Resolve(total)
		if ok && a > *first && a <= last && a-*first <= httpfield.MaxCoalescedGap && (next < 0 || a < next) {
			next = a
		}
	}
	if next < 0 {
		return false
	}
	*first = next
	return true
}

// reply is a response with the cancel of its request's context (which the
// idle timer uses).
type reply struct {
	resp   *http.Response
	ctx    context.Context
	cancel context.CancelCauseFunc
	// hold keeps the response open after a piece read from it in
	// modeHead, for the next piece (onestream.go); closed says it was
	// closed all the same (a failed attempt).
	hold, closed bool
}

func (r *reply) close() {
	r.closed = true
	r.resp.Body.Close()
	r.cancel(nil)
}

// send makes one request of the download. With from > 0 or end >= 0 it
// asks for bytes from..end-1 (end -1: to the end), with If-Range ifRange
// when set. A status >= 400 is returned as a *StatusError, and a 206 or
// 226 not asked for as ErrProtocol, with the reply (its body closed) for
// its header.
func (d *download) send(ctx context.Context, method string, from, end int64, ifRange string) (*reply, error) {
	return d.sendTo(ctx, nil, method, from, end, ifRange)
}

// sendTo is send to source s (nil: the origin; mirrors.go).
func (d *download) sendTo(ctx context.Context, s *source, method string, from, end int64, ifRange string) (*reply, error) {
	r := d.request(s)
	hreq, err := r.build(method)
	if err != nil {
		return nil, err
	}
	if from > 0 || end >= 0 {
		last := ""
		if end >= 0 {
			last = strconv.FormatInt(end-1, 10)
		}
		hreq.Header.Set("Range", fmt.Sprintf("bytes=%d-%s", from, last))
		if _, asked := hreq.Header[verify.WantContentDigest]; asked && len(r.WantContent) > 0 && !given(r.Header, verify.WantContentDigest) {
			// the piece's own preference, where build sent hdig's (not
			// the user's -H field, nor under -H 'Want-Content-Digest:',
			// Request.Omit)
			hreq.Header.Set(verify.WantContentDigest, verify.FormatWant(pieceWant))
		}
		if ifRange != "" {
			hreq.Header.Set("If-Range", ifRange)
		}
	}
	rctx, cancel := context.WithCancelCause(ctx)
	hreq = hreq.WithContext(withSentHook(rctx, r.OnRequest))
	resp, err := d.c.http.Do(hreq)
	if err != nil {
		err = d.c.transportError(rctx, err)
		cancel(nil)
		if seeRefused(&r, resp) {
			return &reply{resp: resp, ctx: rctx, cancel: cancel}, err // the last answer (first)
		}
		return nil, err
	}
	if r.OnResponse != nil {
		r.OnResponse(resp)
	}
	err = unasked(resp)
	if resp.StatusCode >= 400 {
		se := statusError(resp, r.KeepErrorBody)
		d.received.Add(se.read)
		err = se
	}
	if err != nil {
		resp.Body.Close()
		cancel(nil)
		return &reply{resp: resp, ctx: rctx, cancel: cancel}, err
	}
	return &reply{resp: resp, ctx: rctx, cancel: cancel}, nil
}

// first sends the download's first request, retried with backoff.
func (d *download) first(ctx context.Context, from, end int64, ifRange string) (*reply, error) {
	for attempt := 0; ; attempt++ {
		r, err := d.send(ctx, http.MethodGet, from, end, ifRange)
		if err == nil {
			return r, nil
		}
		if r != nil {
			d.answered(r.resp) // the JSON verdict reports the status
		}
		if !retryable(err) || attempt >= d.req.Retry || ctx.Err() != nil {
			return nil, err
		}
		d.retries.Add(1)
		if !sleep(ctx, d.req.backoff(attempt)) {
			return nil, context.Canceled
		}
	}
}

// hooks serializes the -v callbacks: pieces run concurrently.
func (d *download) hooks() {
	r := *d.req
	if f := r.OnRequest; f != nil {
		r.OnRequest = func(h *http.Request) { d.hook.Lock(); defer d.hook.Unlock(); f(h) }
	}
	if f := r.OnResponse; f != nil {
		r.OnResponse = func(h *http.Response) { d.hook.Lock(); defer d.hook.Unlock(); f(h) }
	}
	d.req = &r
}

// checkPiece checks a response to a piece's range request: a 206 of the
// same version (ETag, length, coding, Repr-Digest) with exactly the range
// asked. A 200, or a 206 of another version (versionDiffers), is
// errRestart.
func (d *download) checkPiece(resp *http.Response, p *piece, from int64) error {
	if resp.StatusCode == http.StatusOK {
		return errRestart
	}
	if resp.StatusCode == http.StatusPartialContent {
		if why := d.versionDiffers(resp.Header); why != "" {
			return fmt.Errorf("%w: piece %d: %s", errRestart, p.id, why)
		}
	}
	if err := d.checkRange(resp, p, from); err != nil {
		return err
	}
	return d.noteLateRepr(resp.Header, p)
}

// versionDiffers says how the header h of an origin's 206 is of another
// version than the one being fetched (ETag d.etag, "" none known): another
// ETag, another Last-Modified where no strong ETag names the version
// (modifiedDiffers: a 206 answering no If-Range, or one its origin
// ignored), or another representation (reprOther); "" when none shows.
// It is the one rule for every range answer of the origin's (checkPiece),
// a resume's first as every later piece's: the whole is then fetched
// again and verified (errRestart), never spliced, never ended as a
// protocol error that loses the part. An origin whose ETag outlives a
// change (one made of the size and an mtime put back) shows it by its
// Repr-Digest only; a fetch in full repairs it, and the bytes released
// are those of one answer, judged by its fields.
func (d *download) versionDiffers(h http.Header) string {
	if got := h.Get("ETag"); d.etag != "" && got != d.etag {
		return fmt.Sprintf("ETag %q, not the %q", httpfield.Clip(got), d.etag)
	}
	if why := d.modifiedDiffers(h); why != "" {
		return why
	}
	return d.reprOther(h)
}

// reprOther says how the header h of any source's 206 (the origin's,
// versionDiffers; a mirror's, sameRepresentation) names another
// representation than the version's, whatever server sent it: another
// length (d.total, -1 unknown), another content coding than the
// transfer's first answer's or the part's (a coding is the
// representation's, RFC 9110 §8.4: bytes of a gzip and an identity
// representation spliced are neither), or a Repr-Digest value another
// than one of versionReprs (reprDiffers); "" when none shows. The
// validators (ETag, Last-Modified) are each server's own: the origin's
// are compared in versionDiffers, a mirror's with its own.
func (d *download) reprOther(h http.Header) string {
	if cr, err := httpfield.ParseContentRange(h.Get("Content-Range")); err == nil && d.total >= 0 && cr.Total != d.total {
		return fmt.Sprintf("length %d, not the %d", cr.Total, d.total)
	}
	got := orIdentity(codingOf(h))
	for _, want := range []string{orIdentity(codingOf(d.header)), d.savedCoding} {
		if want != "" && got != want {
			return fmt.Sprintf("Content-Encoding %q, not the %q", httpfield.Clip(got), want)
		}
	}
	return reprDiffers(reprField(h), d.versionReprs()...)
}

// reprDiffers says which algorithm of the Repr-Digest f (of an origin's
// answer, header or trailer) has a value another than one of reprs has,
// the fields the version's answers carried; "" when none.
func reprDiffers(f verify.DigestField, reprs ...verify.DigestField) string {
	for _, r := range reprs {
		if alg, ok := differ(r, f); !ok {
			return fmt.Sprintf("Repr-Digest %s differs from an earlier answer's", alg)
		}
	}
	return ""
}

// versionReprs are the Repr-Digest fields the answers of the version being
// fetched carried: the first answer's, the one a resumed part's sidecar
// recorded (download.savedRepr), and the pieces' when the first answer
// had none (download.late) or of members no earlier answer carried
// (download.lateMore's Repr-Digest fields).
func (d *download) versionReprs() []verify.DigestField {
	out := []verify.DigestField{d.ref.repr}
	if d.savedRepr != "" {
		out = append(out, verify.ParseDigestField(verify.ReprDigest, []string{d.savedRepr}))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return append(out, d.lateReprsLocked()...)
}

// checkRange checks what every source's 206 to a piece's range must be:
// a single part, exactly the range asked, of the first response's length
// (its coding and Repr-Digest: reprOther, by versionDiffers for the
// origin, sameRepresentation for a mirror).
func (d *download) checkRange(resp *http.Response, p *piece, from int64) error {
	where := fmt.Sprintf("piece %d (bytes %d-%d)", p.id, from, p.end-1)
	if resp.StatusCode != http.StatusPartialContent {
		return protocolErrorf("%s: status %d, want 206", where, resp.StatusCode)
	}
	if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "multipart/") {
		return protocolErrorf("%s: multipart answer to a single range", where)
	}
	cr, err := httpfield.ParseContentRange(resp.Header.Get("Content-Range"))
	if err != nil {
		return protocolErrorf("%s: %v", where, err)
	}
	want := ContentRange{First: from, Last: p.end - 1, Total: d.total}
	if cr != want {
		return protocolErrorf("%s: Content-Range %s, want %s", where, cr, want)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != cr.Len() {
		return protocolErrorf("%s: Content-Length %d, want %d", where, resp.ContentLength, cr.Len())
	}
	return nil
}

// differ compares the members two Integrity fields share (verify.Agree);
// ok false names an algorithm whose values differ.
func differ(a, b verify.DigestField) (string, bool) {
	if cs := verify.Agree(a, b); len(cs) > 0 {
		return cs[0].Algorithm, false
	}
	return "", true
}

// pieceWant is the Want-Content-Digest of a piece's range request. A
// piece's Content-Digest only says which piece went wrong, so that it alone
// is fetched again; the proof of the file is its Repr-Digest, computed over
// the whole with an accepted algorithm. So pieces prefer CRC-32C, which
// costs the origin and hdig next to nothing, to a second SHA pass over
// every byte (RFC 9530 §5 allows deprecated algorithms against corruption,
// never as proof against an adversary; they are never that here).
var pieceWant = []verify.Pref{{Algorithm: "crc32c", Weight: 10}, {Algorithm: "sha-256", Weight: 5}}

// piecePolicy accepts the policy's algorithms and CRC-32C for pieces.
func (d *download) piecePolicy() verify.Policy {
	return verify.Policy{Accept: append([]string{"crc32c"}, d.req.Policy.Accept...)}
}

// pieceFields are the fields of one section of a piece's response that
// speak for its content: Content-Digest and Content-MD5.
func pieceFields(h http.Header) []verify.DigestField {
	return []verify.DigestField{verify.ParseDigestField(verify.ContentDigest, h.Values(verify.ContentDigest)), verify.ParseContentMD5(h)}
}

// pieceAlgorithms are what a piece is hashed with: every algorithm hdig
// computes that its Content-Digest or Content-MD5 names (a mismatch in any
// fails the piece; the policy decides only what counts as a match), and
// every algorithm when the response declares one of them in Trailer (its
// algorithm is known only at the end). A trailer nobody declared (HTTP/2,
// chunked) is not hashed for ahead: a piece's digest only locates
// corruption, and hashing each piece twice over would double the cost of
// every download in pieces; one not computed is named in a warning.
func (d *download) pieceAlgorithms(resp *http.Response) []verify.Algorithm {
	if declaresTrailer(resp, func(k string) bool { return k == verify.ContentDigest || k == "Content-Md5" }) {
		return verify.All
	}
	want := map[string]bool{}
	for _, f := range pieceFields(resp.Header) {
		for _, x := range f.Digests {
			want[x.Algorithm] = true
		}
	}
	return pick(want)
}

// verifyPiece checks a piece's Content-Digest and Content-MD5 (header and
// trailer) against the bytes of this response.
func (d *download) verifyPiece(resp *http.Response, p *piece, from int64, h *verify.Hasher) error {
	var sums []verify.Digest
	if h != nil {
		sums = h.Sums()
	}
	var matched []verify.Digest
	for _, f := range append(pieceFields(resp.Header), pieceFields(resp.Trailer)...) {
		for _, c := range verify.Compare(f, sums, d.piecePolicy()) {
			switch {
			case c.Result == verify.Ignored && c.Reason == verify.NotComputed:
				d.warn(fmt.Sprintf("piece %d (bytes %d-%d): %s %s in an undeclared trailer not computed", p.id, from, p.end-1, c.Field, c.Algorithm))
			case c.Result == verify.Mismatch:
				return newPieceMismatch(resp, p, from, c) // refetched by download.piece
			case c.Result == verify.Match:
				matched = append(matched, verify.Digest{Algorithm: c.Algorithm, Value: c.Actual})
			}
		}
	}
	if len(matched) > 0 && from == p.start {
		d.mu.Lock()
		d.digests[span{p.start, p.end}] = verify.FormatDigests(matched)
		d.mu.Unlock()
	}
	return nil
}
