package fetch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// Bounds of a multipart/byteranges body (RFC 9110 §14.6, RFC 2046 §5.1.1):
// a hostile origin cannot make hdig buffer more than a few KiB.
const (
	maxBoundaryLen   = 70   // RFC 2046 bchars limit
	maxPartLine      = 1024 // one header line, or one line of preamble
	maxPartHeader    = 4096 // all header lines of one part
	maxPartFields    = 16   // header lines of one part
	maxPreambleBytes = 1024 // before the first delimiter, after the last
)

// byteRangesReader reads a multipart/byteranges body and yields the bytes
// of its parts one after another. Each part must carry a Content-Range
// inside the ranges asked, with the same complete length as the others,
// and exactly that many bytes.
type byteRangesReader struct {
	br    *bufio.Reader
	dash  string // "--" + boundary
	asked []ByteRange
	total int64
	left  int64 // bytes left in the current part
	done  bool
	err   error
	// Parts are the Content-Ranges of the parts read so far.
	Parts []ContentRange
	// onPart is Request.OnPart, called as each part begins.
	onPart func(ContentRange) error
	// A part may carry its own Content-Digest or Content-MD5 (RFC 2046
	// body-part fields, RFC 1864): each is a digest of that part's bytes,
	// computed and compared as its part ends; the checks go to the verdict
	// (a mismatch fails it).
	policy verify.Policy
	fields []verify.DigestField // the current part's
	hasher *verify.Hasher       // of the current part's bytes, nil for none
	checks []verify.Check
}

// newByteRangesReader checks the Content-Type (media type and boundary) and
// returns a reader of the parts' bytes.
func newByteRangesReader(r io.Reader, contentType string, asked []ByteRange) (*byteRangesReader, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/byteranges" {
		return nil, protocolErrorf("Content-Type %q: want multipart/byteranges", httpfield.Clip(contentType))
	}
	b := params["boundary"]
	if b == "" || len(b) > maxBoundaryLen {
		return nil, protocolErrorf("multipart boundary of %d bytes: want 1 to %d", len(b), maxBoundaryLen)
	}
	return &byteRangesReader{br: bufio.NewReaderSize(r, maxPartLine), dash: "--" + b, asked: asked, total: -1}, nil
}

func (m *byteRangesReader) Read(p []byte) (int, error) {
	for m.left == 0 && m.err == nil {
		if m.err = m.next(); errors.Is(m.err, errEnded) {
			m.err = m.ended()
		}
	}
	if m.err != nil {
		return 0, m.err
	}
	if int64(len(p)) > m.left {
		p = p[:m.left]
	}
	n, err := m.br.Read(p)
	m.left -= int64(n)
	if m.hasher != nil {
		m.hasher.Write(p[:n])
	}
	if err == io.EOF {
		err = nil
		if n == 0 {
			m.err = m.ended()
			err = m.err
		}
	}
	return n, err
}

// errEnded: the body ended (io.EOF: its message whole, by its length or
// its last chunk) before the multipart structure did. The connection
// breaking is io.ErrUnexpectedEOF from the transport, a readError.
var errEnded = errors.New("the body ended")

// ended is the protocol error of a body that ended early (errEnded),
// saying where and what was wanted: the origin's body is malformed, which
// "truncated: got 855 of 855 bytes" did not say.
func (m *byteRangesReader) ended() error {
	n := len(m.Parts)
	switch {
	case n == 0:
		return protocolErrorf("multipart body ended before a part: want the delimiter %s and a part", m.dash)
	case m.left > 0:
		cr := m.Parts[n-1]
		return protocolErrorf("multipart body ended inside part %d (%s): got %d of its %d bytes", n, cr, cr.Len()-m.left, cr.Len())
	}
	return protocolErrorf("multipart body ended after part %d (%s): want another part or the close delimiter %s--", n, m.Parts[n-1], m.dash)
}

// next reads up to the body of the next part, or to the end (io.EOF).
func (m *byteRangesReader) next() error {
	if m.done {
		return io.EOF
	}
	m.checkPart()
	if len(m.Parts) == 0 {
		if err := m.preamble(); err != nil {
			return err
		}
	} else if err := m.delimiter(); err != nil || m.done {
		if err == nil {
			err = m.epilogue()
		}
		return err
	}
	return m.part()
}

// preamble skips lines up to the first delimiter line.
func (m *byteRangesReader) preamble() error {
	for seen := 0; seen <= maxPreambleBytes; {
		line, err := m.line()
		if err != nil {
			return err
		}
		seen += len(line) + 1
		if rest, ok := strings.CutPrefix(line, m.dash); ok && strings.TrimRight(rest, " \t") == "" {
			return nil
		}
	}
	return protocolErrorf("multipart body: no boundary in the first %d bytes", maxPreambleBytes)
}

// delimiter reads the CRLF that ends a part's bytes and the delimiter line,
// noting the close delimiter.
func (m *byteRangesReader) delimiter() error {
	line, err := m.line()
	if err != nil {
		return err
	}
	if line != "" {
		return protocolErrorf("multipart part longer than its Content-Range %s", m.Parts[len(m.Parts)-1])
	}
	if line, err = m.line(); err != nil && !(errors.Is(err, errEnded) && line != "") {
		return err
	}
	rest, ok := strings.CutPrefix(line, m.dash)
	if !ok {
		return protocolErrorf("multipart part longer than its Content-Range %s", m.Parts[len(m.Parts)-1])
	}
	if close, ok := strings.CutPrefix(rest, "--"); ok {
		rest, m.done = close, true
	}
	if strings.TrimRight(rest, " \t") != "" {
		return protocolErrorf("multipart delimiter followed by %q", httpfield.Clip(rest))
	}
	return nil
}

// epilogue drains what follows the close delimiter, within bounds.
func (m *byteRangesReader) epilogue() error {
	n, err := io.Copy(io.Discard, io.LimitReader(m.br, maxPreambleBytes+1))
	if err != nil {
		return &readError{err: err}
	}
	if n > maxPreambleBytes {
		return protocolErrorf("multipart epilogue over %d bytes", maxPreambleBytes)
	}
	return io.EOF
}

// part reads one part's header and checks its Content-Range.
func (m *byteRangesReader) part() error {
	if len(m.Parts) >= len(m.asked) {
		return protocolErrorf("multipart body has more parts than the %d ranges asked", len(m.asked))
	}
	h, err := m.header()
	if err != nil {
		return err
	}
	cr, err := httpfield.ParseContentRange(h.Get("Content-Range"))
	if err != nil {
		return protocolErrorf("multipart part %d: %v", len(m.Parts)+1, err)
	}
	switch {
	case cr.First < 0 || cr.Total < 0:
		return protocolErrorf("multipart part %d: Content-Range %s, want a range of a known length", len(m.Parts)+1, cr)
	case m.total >= 0 && cr.Total != m.total:
		return protocolErrorf("multipart part %d: length %d, the first part said %d", len(m.Parts)+1, cr.Total, m.total)
	case !within(m.asked, cr.First, cr.Last, cr.Total):
		return protocolErrorf("multipart part %d: %s was not asked for (%s)", len(m.Parts)+1, cr, httpfield.FormatRanges(m.asked))
	}
	if m.onPart != nil {
		if err := m.onPart(cr); err != nil {
			return err
		}
	}
	m.total, m.left = cr.Total, cr.Len()
	m.Parts = append(m.Parts, cr)
	m.fields = pieceFields(http.Header(h))
	want := map[string]bool{}
	for _, f := range m.fields {
		for _, x := range f.Digests {
			want[x.Algorithm] = true
		}
	}
	if algs := pick(want); len(algs) > 0 {
		m.hasher = verify.NewHasher(algs)
	}
	return nil
}

// checkPart compares the digests the part just read carried with its
// bytes, once all of them were read.
func (m *byteRangesReader) checkPart() {
	if m.hasher == nil && len(m.fields) == 0 {
		return
	}
	var sums []verify.Digest
	if m.hasher != nil {
		sums = m.hasher.Sums()
		m.hasher.Close()
	}
	where := fmt.Sprintf("of multipart part %d (%s)", len(m.Parts), m.Parts[len(m.Parts)-1])
	for _, f := range m.fields {
		for _, c := range verify.Compare(f, sums, m.policy) {
			if c.Result == verify.Match {
				// Body-part fields are outside RFC 9530: a mismatch fails,
				// a match proves nothing beyond what the response's do.
				c.Result, c.Reason = verify.Ignored, "a body part's field, not proof"
			}
			if c.Reason == "" {
				c.Reason = where
			} else {
				c.Reason = where + "; " + c.Reason
			}
			m.checks = append(m.checks, c)
		}
	}
	m.fields, m.hasher = nil, nil
}

// header reads a part's header lines up to the empty line.
func (m *byteRangesReader) header() (textproto.MIMEHeader, error) {
	h := textproto.MIMEHeader{}
	size := 0
	for range maxPartFields + 1 {
		line, err := m.line()
		if err != nil {
			return nil, err
		}
		if line == "" {
			return h, nil
		}
		if size += len(line); size > maxPartHeader {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, protocolErrorf("multipart part header line %q: want 'Name: value'", httpfield.Clip(line))
		}
		h.Add(k, strings.TrimSpace(v))
	}
	return nil, protocolErrorf("multipart part header over %d lines or %d bytes", maxPartFields, maxPartHeader)
}

// line reads one line without its CRLF (or bare LF); a line longer than
// maxPartLine is a protocol error, one the body's end cuts is errEnded.
func (m *byteRangesReader) line() (string, error) {
	b, err := m.br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return "", protocolErrorf("multipart line over %d bytes", maxPartLine)
	case err == io.EOF:
		return string(bytes.TrimRight(b, "\r")), errEnded
	case err != nil:
		return "", &readError{err: err}
	}
	return string(bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))), nil
}

// partialBody checks a 206 answer to -r and returns the reader of the bytes
// to write and the number of parts. A single part's Content-Range must be
// exactly the range asked (or, for several ranges, inside them).
func partialBody(resp *http.Response, body io.Reader, asked []ByteRange) (io.Reader, func() int, error) {
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "multipart/byteranges") {
		m, err := newByteRangesReader(body, ct, asked)
		if err != nil {
			return nil, nil, err
		}
		return m, func() int { return len(m.Parts) }, nil
	}
	cr, err := httpfield.ParseContentRange(resp.Header.Get("Content-Range"))
	if err != nil {
		return nil, nil, protocolErrorf("%v", err)
	}
	total := cr.Total
	if total < 0 {
		total = cr.Last + 1
	}
	ok := cr.First >= 0 && within(asked, cr.First, cr.Last, total)
	if len(asked) == 1 && ok {
		first, last, _ := asked[0].Resolve(total)
		ok = first == cr.First && last == cr.Last
	}
	if !ok {
		return nil, nil, protocolErrorf("206 with Content-Range %s, asked %s", cr, httpfield.FormatRanges(asked))
	}
	if resp.ContentLength >= 0 && resp.ContentLength != cr.Len() {
		return nil, nil, protocolErrorf("206 with Content-Length %d for Content-Range %s", resp.ContentLength, cr)
	}
	return &exactReader{r: body, left: cr.Len(), what: cr.String()}, func() int { return 1 }, nil
}

// exactReader passes exactly left bytes of r and fails if r has more or
// fewer.
type exactReader struct {
	r    io.Reader
	left int64
	what string
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left == 0 {
		// The end of the body: a trailer, or a connection that broke
		// before it.
		if err := expectEOF(e.r); errors.Is(err, ErrProtocol) {
			return 0, protocolErrorf("body longer than Content-Range %s", e.what)
		} else if err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		err = &readError{err: io.ErrUnexpectedEOF}
	} else if err == io.EOF {
		err = nil
	}
	return n, err
}
