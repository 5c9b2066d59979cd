package fetch

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hdig/hdig/verify"
)

// ContentRange is a parsed Content-Range field (RFC 9110 §14.4): bytes
// First through Last (inclusive) of a representation of Total bytes. Total
// is -1 when the origin sent "*". An unsatisfied range ("bytes */N") has
// First and Last -1.
type ContentRange struct {
	First, Last, Total int64
}

// Len is the number of bytes the range covers.
func (c ContentRange) Len() int64 {
	if c.First < 0 {
		return 0
	}
	return c.Last - c.First + 1
}

func (c ContentRange) String() string {
	total := "*"
	if c.Total >= 0 {
		total = strconv.FormatInt(c.Total, 10)
	}
	if c.First < 0 {
		return "bytes */" + total
	}
	return fmt.Sprintf("bytes %d-%d/%s", c.First, c.Last, total)
}

// maxContentRangeLen bounds the field value: two 19-digit positions, a
// length and the unit fit in well under it.
const maxContentRangeLen = 80

// ParseContentRange parses a Content-Range field value strictly: the unit
// must be "bytes", positions are decimal digits without signs or spaces,
// First <= Last, and Last < Total when the total is known.
func ParseContentRange(s string) (ContentRange, error) {
	bad := func(why string) (ContentRange, error) {
		return ContentRange{}, fmt.Errorf("Content-Range %q: %s", clipField(s), why)
	}
	if len(s) > maxContentRangeLen {
		return bad("too long")
	}
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return bad(`want unit "bytes"`)
	}
	rng, total, ok := strings.Cut(rest, "/")
	if !ok {
		return bad(`want "/" before the complete length`)
	}
	c := ContentRange{First: -1, Last: -1, Total: -1}
	if total != "*" {
		n, err := parsePos(total)
		if err != nil {
			return bad("complete length: " + err.Error())
		}
		c.Total = n
	}
	if rng == "*" {
		if c.Total < 0 {
			return bad(`"*/*" says nothing`)
		}
		return c, nil
	}
	first, last, ok := strings.Cut(rng, "-")
	if !ok {
		return bad(`want "first-last"`)
	}
	var err error
	if c.First, err = parsePos(first); err != nil {
		return bad("first position: " + err.Error())
	}
	if c.Last, err = parsePos(last); err != nil {
		return bad("last position: " + err.Error())
	}
	switch {
	case c.First > c.Last:
		return bad(fmt.Sprintf("first %d after last %d", c.First, c.Last))
	case c.Total >= 0 && c.Last >= c.Total:
		return bad(fmt.Sprintf("last %d beyond the length %d", c.Last, c.Total))
	}
	return c, nil
}

// parsePos parses a non-negative decimal of at most 18 digits (no overflow
// when lengths are added).
func parsePos(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	if len(s) > 18 {
		return 0, fmt.Errorf("%d digits, at most 18", len(s))
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%q is not a digit", s[i])
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n, nil
}

// clipField shortens a hostile field value for an error message.
func clipField(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// ByteRange is one range of -r: bytes First through Last; Last -1 means to
// the end ("START-"); Suffix > 0 means the last Suffix bytes ("-SUFFIX").
type ByteRange struct {
	First, Last int64
	Suffix      int64
}

// maxRanges bounds the ranges of one -r: more would only let a server
// answer with a huge multipart body.
const maxRanges = 64

// ParseRanges parses -r: "START-END", "START-" or "-SUFFIX", several
// separated by commas (an optional "bytes=" prefix is accepted).
func ParseRanges(s string) ([]ByteRange, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "bytes=")
	parts := strings.Split(s, ",")
	if len(parts) > maxRanges {
		return nil, fmt.Errorf("%d ranges, at most %d", len(parts), maxRanges)
	}
	var out []ByteRange
	for _, p := range parts {
		p = strings.TrimSpace(p)
		first, last, ok := strings.Cut(p, "-")
		if !ok {
			return nil, fmt.Errorf("range %q: want START-END, START- or -SUFFIX", p)
		}
		var r ByteRange
		var err error
		switch {
		case first == "":
			if r.Suffix, err = parsePos(last); err == nil && r.Suffix == 0 {
				err = fmt.Errorf("an empty suffix selects nothing")
			}
		default:
			r.Last = -1
			if r.First, err = parsePos(first); err == nil && last != "" {
				if r.Last, err = parsePos(last); err == nil && r.Last < r.First {
					err = fmt.Errorf("end %d before start %d", r.Last, r.First)
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("range %q: %v", p, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (r ByteRange) String() string {
	switch {
	case r.Suffix > 0:
		return fmt.Sprintf("-%d", r.Suffix)
	case r.Last < 0:
		return fmt.Sprintf("%d-", r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// FormatRanges is the Range field value for rs, e.g. "bytes=0-99,-10".
func FormatRanges(rs []ByteRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return "bytes=" + strings.Join(parts, ",")
}

// Resolve returns the bytes r selects in a representation of total bytes
// (RFC 9110 §14.1.2), or ok false when it selects none.
func (r ByteRange) Resolve(total int64) (first, last int64, ok bool) {
	if r.Suffix > 0 {
		if total == 0 {
			return 0, 0, false
		}
		return max(total-r.Suffix, 0), total - 1, true
	}
	if r.First >= total {
		return 0, 0, false
	}
	last = r.Last
	if last < 0 || last >= total {
		last = total - 1
	}
	return r.First, last, true
}

// within reports whether bytes first..last all lie in ranges asked of a
// representation of total bytes.
func within(asked []ByteRange, first, last, total int64) bool {
	for first <= last {
		moved := false
		for _, r := range asked {
			a, b, ok := r.Resolve(total)
			if ok && a <= first && first <= b {
				first, moved = b+1, true
			}
		}
		if !moved {
			return false
		}
	}
	return true
}

// reply is a response with the cancel of its request's context (which the
// idle timer uses).
type reply struct {
	resp   *http.Response
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func (r *reply) close() {
	r.resp.Body.Close()
	r.cancel(nil)
}

// send makes one request of the download. With from > 0 or end >= 0 it
// asks for bytes from..end-1 (end -1: to the end), with If-Range ifRange
// when set. A status >= 400 is returned as a *StatusError, and a 206 or
// 226 not asked for as ErrProtocol, with the reply (its body closed) for
// its header.
func (d *download) send(ctx context.Context, method string, from, end int64, ifRange string) (*reply, error) {
	r := *d.req
	if d.url != "" {
		r.URL = d.url
	}
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
		if len(r.WantContent) > 0 {
			hreq.Header.Set(verify.WantContentDigest, verify.FormatWant(pieceWant))
		}
		if ifRange != "" {
			hreq.Header.Set("If-Range", ifRange)
		}
	}
	rctx, cancel := context.WithCancelCause(ctx)
	hreq = hreq.WithContext(rctx)
	if r.OnRequest != nil {
		r.OnRequest(asSent(hreq))
	}
	resp, err := d.c.http.Do(hreq)
	if err != nil {
		err = d.c.transportError(rctx, err)
		cancel(nil)
		return nil, err
	}
	if r.OnResponse != nil {
		r.OnResponse(resp)
	}
	err = unasked(resp)
	if resp.StatusCode >= 400 {
		err = statusError(resp, r.KeepErrorBody)
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
			d.adopt(r.resp) // the JSON verdict reports the status
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
// same version (ETag, length, Repr-Digest) with exactly the range asked.
// A 200, or a 206 of another ETag, is errRestart.
func (d *download) checkPiece(resp *http.Response, p *piece, from int64) error {
	where := fmt.Sprintf("piece %d (bytes %d-%d)", p.id, from, p.end-1)
	if resp.StatusCode == http.StatusOK {
		return errRestart
	}
	if resp.StatusCode != http.StatusPartialContent {
		return protocolErrorf("%s: status %d, want 206", where, resp.StatusCode)
	}
	if d.etag != "" && resp.Header.Get("ETag") != d.etag {
		return errRestart
	}
	if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "multipart/") {
		return protocolErrorf("%s: multipart answer to a single range", where)
	}
	cr, err := ParseContentRange(resp.Header.Get("Content-Range"))
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
	if alg, ok := differ(d.ref.repr, reprField(resp.Header)); !ok {
		return protocolErrorf("%s: Repr-Digest %s differs from the first response's with the same ETag", where, alg)
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

// pieceAlgorithms are the accepted algorithms of a piece's Content-Digest:
// those of the header field, or the ones asked for when it is a trailer.
func (d *download) pieceAlgorithms(resp *http.Response) []verify.Algorithm {
	cd := verify.ParseDigestField(verify.ContentDigest, resp.Header.Values(verify.ContentDigest))
	want := map[string]bool{}
	for _, x := range cd.Digests {
		want[x.Algorithm] = cd.Usable()
	}
	if !cd.Present && strings.Contains(strings.ToLower(strings.Join(resp.Header.Values("Trailer"), ",")), "content-digest") {
		for _, p := range pieceWant {
			want[p.Algorithm] = p.Weight > 0
		}
	}
	var algs []verify.Algorithm
	policy := d.piecePolicy()
	for _, a := range verify.Algorithms {
		if want[a.Key] && policy.Accepts(a.Key) {
			algs = append(algs, a)
		}
	}
	return algs
}

// verifyPiece checks a piece's Content-Digest (header and trailer) against
// the bytes of this response.
func (d *download) verifyPiece(resp *http.Response, p *piece, from int64, h *verify.Hasher) error {
	if h == nil {
		return nil
	}
	sums := h.Sums()
	var matched []verify.Digest
	for _, lines := range [][]string{resp.Header.Values(verify.ContentDigest), resp.Trailer.Values(verify.ContentDigest)} {
		for _, c := range verify.Compare(verify.ParseDigestField(verify.ContentDigest, lines), sums, d.piecePolicy()) {
			switch c.Result {
			case verify.Mismatch:
				return newPieceMismatch(resp, p, from, c) // refetched by download.piece
			case verify.Match:
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
