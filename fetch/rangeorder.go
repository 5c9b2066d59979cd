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
	end, i := a.want[a.next].Last, a.next+1
	for end < cr.Last && i < len(a.want) && a.want[i].First >= cr.First && a.want[i].First <= end+1 {
		a.overlap = a.overlap || a.want[i].First <= end
		end, i = max(end, a.want[i].Last), i+1
	}
	if end != cr.Last {
		return protocolErrorf("206 part %s where %s was asked next (%s): the parts are written in the order asked", cr, a.nextName(), httpfield.FormatRanges(a.asked))
	}
	a.next, a.held = i, &cr
	return nil
}

// skipHeld passes the ranges asked next that the part before held whole:
// a server may coalesce a range into one containing it (0-9 and 2-4 sent
// as 0-9), whose bytes were then written once. A part that starts where
// the next range asked does is read as that range's (0-9, then 2-4).
func (a *askedOrder) skipHeld() {
	for a.held != nil && a.next < len(a.want) && a.want[a.next].First >= a.held.First && a.want[a.next].Last <= a.held.Last {
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
	if err == io.EOF {
		a.skipHeld()
	}
	if err == io.EOF && a.next < len(a.want) {
		err = protocolErrorf("the 206 left out %s of the ranges asked (%s)", a.want[a.next], httpfield.FormatRanges(a.asked))
	}
	return n, err
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
