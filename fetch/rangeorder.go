package fetch

import (
	"io"
	"net/http"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// askedOrder reads the parts of a -r answer, which are written one after
// another without their Content-Range: only the ranges asked, in the order
// asked, tell where each part's bytes are. Each part must be the next
// range asked that the representation can satisfy, or several of them in
// a row coalesced into one (RFC 9110 §14.6 lets a server leave out the
// unsatisfiable ones and coalesce the others); at the end, none may be
// left out.
type askedOrder struct {
	r     io.Reader
	asked []ByteRange
	want  []ContentRange // the satisfiable ranges asked, known at the first part
	next  int            // want's index the next part starts at
	held  *ContentRange  // the part before's range; nil before the first
	// spans are the bytes of the held part that are written: the ranges
	// it coalesced, without the gaps between them; pos is the offset in
	// the representation of the next byte read.
	spans []ContentRange
	pos   int64
	// overlap: a part coalesced overlapping ranges, whose shared bytes
	// were written once.
	overlap bool
}

// part checks the Content-Range of the part about to be read.
func (a *askedOrder) part(cr ContentRange) error {
	if a.want == nil {
		a.resolve(cr)
	}
	if a.next < len(a.want) && a.want[a.next].First != cr.First {
		a.skipHeld()
	}
	if a.next >= len(a.want) || a.want[a.next].First != cr.First {
		return protocolErrorf("206 part %s where %s was asked next (%s): the parts are written in the order asked", cr, a.nextName(), httpfield.FormatRanges(a.asked))
	}
	spans, i := a.coalesced(cr)
	if spans[len(spans)-1].Last != cr.Last {
		return protocolErrorf("206 part %s where %s was asked next (%s): the parts are written in the order asked", cr, a.nextName(), httpfield.FormatRanges(a.asked))
	}
	a.next, a.held, a.spans, a.pos = i, &cr, spans, cr.First
	return nil
}

// coalesced lists the ranges asked, from the next one on, that part cr
// coalesced, in the order asked: adjacent and overlapping ones as one
// span, ranges after a gap (whose bytes are not written) as the next
// span, one held whole by a span as nothing more. i is the range asked
// after them.
func (a *askedOrder) coalesced(cr ContentRange) (spans []ContentRange, i int) {
	spans, i = []ContentRange{a.want[a.next]}, a.next+1
	for ; spans[len(spans)-1].Last < cr.Last && i < len(a.want); i++ {
		w, last := a.want[i], &spans[len(spans)-1]
		switch {
		case w.First < cr.First || w.First > cr.Last:
			return spans, i
		case w.First >= last.First && w.First <= last.Last+1:
			a.overlap = a.overlap || w.First <= last.Last
			last.Last = max(last.Last, w.Last)
		case w.First > last.Last+1:
			spans = append(spans, w)
		case heldIn(spans, w):
			a.overlap = true
		default:
			return spans, i
		}
	}
	return spans, i
}

// heldIn says spans hold all of w's bytes.
func heldIn(spans []ContentRange, w ContentRange) bool {
	for _, s := range spans {
		if s.First <= w.First && w.Last <= s.Last {
			return true
		}
	}
	return false
}

// skipHeld passes the ranges asked next that the part before held whole:
// a server may coalesce a range into one containing it (0-9 and 2-4 sent
// as 0-9), whose bytes were then written once. A part that starts where
// the next range asked does is read as that range's (0-9, then 2-4).
func (a *askedOrder) skipHeld() {
	for a.held != nil && a.next < len(a.want) && heldIn(a.spans, a.want[a.next]) {
		a.next++
		a.overlap = true
	}
}

// resolve lists the ranges asked that select bytes of the representation
// the first part names the length of.
func (a *askedOrder) resolve(cr ContentRange) {
	total := cr.Total
	if total < 0 {
		total = cr.Last + 1 // as partialBody reads an unknown length
	}
	a.want = []ContentRange{}
	for _, r := range a.asked {
		if first, last, ok := r.Resolve(total); ok {
			a.want = append(a.want, ContentRange{First: first, Last: last, Total: cr.Total})
		}
	}
}

func (a *askedOrder) nextName() string {
	if a.next >= len(a.want) {
		return "no more bytes"
	}
	return a.want[a.next].String()
}

// Read passes the parts' bytes; at their end, a range asked and not sent
// is a protocol error.
func (a *askedOrder) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	for n > 0 {
		if n = a.keep(p[:n]); n > 0 || err != nil {
			break
		}
		n, err = a.r.Read(p) // all of it in a gap
	}
	if err == io.EOF {
		a.skipHeld()
	}
	if err == io.EOF && a.next < len(a.want) {
		err = protocolErrorf("the 206 left out %s of the ranges asked (%s)", a.want[a.next], httpfield.FormatRanges(a.asked))
	}
	return n, err
}

// keep drops from p, the next bytes of the held part, those in the gaps
// between its spans, and returns how many are left at its start. A Read
// of the parts never spans two (byteRangesReader).
func (a *askedOrder) keep(p []byte) int {
	from, k := a.pos, 0
	a.pos += int64(len(p))
	if len(a.spans) < 2 {
		return len(p)
	}
	for _, s := range a.spans {
		lo, hi := max(s.First, from), min(s.Last+1, a.pos)
		if lo < hi {
			k += copy(p[k:], p[lo-from:hi-from])
		}
	}
	return k
}

// rangesBody handles a 206 answer to -r: it checks the Content-Range (or the
// multipart body) and replaces *out with the reader of the parts' bytes.
// The returned func counts the parts once they are read.
func rangesBody(req *Request, resp *http.Response, res *Result, out *io.Reader) (func() int, error) {
	if len(req.Ranges) == 0 || resp.StatusCode != http.StatusPartialContent {
		return nil, nil
	}
	r, parts, err := partialBody(resp, *out, req.Ranges)
	if err != nil {
		return nil, err
	}
	m, multi := r.(*byteRangesReader)
	if multi {
		m.policy = req.Policy
	}
	onPart := req.OnPart // placing each part where its Content-Range says
	if onPart == nil {
		ordered := &askedOrder{r: r, asked: req.Ranges}
		onPart, r = ordered.part, ordered
	}
	if multi {
		m.onPart = onPart
	} else if cr, err := httpfield.ParseContentRange(resp.Header.Get("Content-Range")); err != nil {
		return nil, protocolErrorf("%v", err)
	} else if err := onPart(cr); err != nil {
		return nil, err
	}
	*out, res.Strategy = r, StrategyRanges
	return parts, nil
}

// addPartChecks adds to v what reading a -r answer through r found: the
// checks of the parts' own digests (of a multipart body) and a warning
// when coalesced ranges shared bytes.
func addPartChecks(v *verify.Verdict, r io.Reader) {
	if a, ok := r.(*askedOrder); ok {
		if a.overlap {
			v.Warn("the origin coalesced overlapping ranges: the bytes they share were written once")
		}
		r = a.r
	}
	if m, ok := r.(*byteRangesReader); ok {
		v.Add(m.checks...)
	}
}
