package server

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// bodyWriter sits between http.ServeContent and the connection. When
// ServeContent writes the header it knows the status and the range, so
// that is where Content-Digest is settled (RFC 9530 §2: over exactly the
// content of this message):
//
//   - HEAD, 304: the digest of empty content (Appendix B.2);
//   - 200: the cached Repr-Digest values, as content = representation;
//   - 206 single range up to the header limit: the range's bytes are read
//     and hashed before the header goes out (a header, not a trailer);
//   - 206 multipart/byteranges up to the limit: the body ServeContent
//     generates (its boundary is random) is held in memory, hashed, and sent
//     after the header with Content-Digest, as long as the bodies held by
//     all requests together fit maxHeldMemory (else as below);
//   - larger partial content: hashed as it streams, Content-Digest is a
//     trailer (RFC 9530 §6.4) and Content-Length is dropped for chunking;
//     over HTTP/1.0, which has no chunking, it is omitted instead.
//
// Other statuses (412, 416, errors) lose the digest fields: their content
// is not the representation. Without a Content-Digest to stream and
// without body faults, ReadFrom hands the *os.File to net/http untouched,
// so the kernel's sendfile does the copy.
type bodyWriter struct {
	http.ResponseWriter
	r    *http.Request
	s    *Server
	rep  *Representation
	plan *digestPlan

	wroteHeader bool
	failed      bool // the response was replaced by problem details
	status      int

	preamble  bool           // a multipart body still owes its leading CRLF
	filtered  bool           // bytes go through filter (no sendfile)
	hasher    *verify.Hasher // Content-Digest computed while streaming
	buf       *bytes.Buffer  // multipart body held back for the header
	held      int64          // bytes of buf reserved from s.held
	hashing   int64          // bytes reserved from s.hashing for hasher
	cdTrailer bool           // the hasher's Content-Digest is a trailer
	trailers  map[string]string

	flipAt  int64 // body offset of the byte to invert, -1: none
	truncAt int64 // body length after which to abort, -1: none
	seen    int64 // bytes through the first stage
	sent    int64 // bytes written to the connection
	start   time.Time
}

var errAborted = errors.New("response abandoned")

func newBodyWriter(w http.ResponseWriter, r *http.Request, s *Server, rep *Representation, plan *digestPlan) *bodyWriter {
	return &bodyWriter{ResponseWriter: w, r: r, s: s, rep: rep, plan: plan, flipAt: -1, truncAt: -1}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *bodyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// WriteHeader settles the digest fields for the status ServeContent chose.
func (w *bodyWriter) WriteHeader(code int) {
	if w.wroteHeader {
		w.ResponseWriter.WriteHeader(code) // let net/http report the misuse
		return
	}
	w.wroteHeader, w.status = true, code
	h := w.Header()
	switch code {
	case http.StatusOK, http.StatusPartialContent:
		if w.rep.Encoding != "" {
			// Set only now: ServeContent omits Content-Length when it
			// sees a Content-Encoding, and our variants have a length.
			h.Set("Content-Encoding", w.rep.Encoding)
		}
		w.addPreamble(code)
		if w.rep.stream {
			w.prepareStream()
		} else if err := w.prepare(code); err != nil {
			w.fail(err)
			return
		}
	case http.StatusNotModified:
		if w.plan.content != nil {
			h.Set(verify.ContentDigest, w.plan.formatContent(verify.EmptyDigests(w.plan.content)))
		}
	default:
		w.replace(code)
		return
	}
	if w.buf == nil {
		w.ResponseWriter.WriteHeader(code)
	}
}

// replace answers a status ServeContent chose that does not carry the
// representation (412, 416, 500) with problem details, as every other
// error of the server (problem): the body ServeContent writes after it
// (an empty one, or a line of text/plain) is discarded.
func (w *bodyWriter) replace(code int) {
	w.failed = true
	p := problem{Status: code}
	if code == http.StatusRequestedRangeNotSatisfiable {
		// ServeContent names the length only when the ranges miss the
		// representation, not for a byte range it could not read.
		if w.Header().Get("Content-Range") == "" {
			w.Header().Set("Content-Range", "bytes */"+strconv.FormatInt(w.rep.Size, 10))
		}
		p.Detail = "no range asked overlaps the representation (" + w.Header().Get("Content-Range") + ")"
	}
	w.s.problem(w.ResponseWriter, w.r, p)
}

// DropRepresentationFields removes from a response whose status does
// not carry the selected representation (representationStatus) the
// fields set for it: the digest fields, whose content is not its bytes,
// and Use-As-Dictionary with the freshness (Cache-Control: max-age) given
// with it, so that no error text is offered as a dictionary and no shared
// cache keeps an error for the URL. http.ServeContent answers 412 and 416
// with the header set for the representation, and the delta step its 406.
func DropRepresentationFields(h http.Header, code int) {
	if representationStatus(code) {
		return
	}
	h.Del(verify.ReprDigest)
	h.Del(verify.ContentDigest)
	h.Del(verify.LegacyDigest)
	h.Del(verify.UnencodedDigest)
	h.Del("Use-As-Dictionary")
	h.Del("Cache-Control")
}

// fail replaces the response with a 500 before anything was sent.
func (w *bodyWriter) fail(err error) {
	w.failed = true
	if errors.Is(err, w.r.Context().Err()) {
		return // the client is gone
	}
	w.s.internalError(w.ResponseWriter, w.r, err)
}

// multipartPreamble goes before the first boundary of a multipart body.
// http.ServeContent starts with the boundary itself; RFC 2046 §5.1.1 puts
// a CRLF before every delimiter, the first one included, nginx sends it,
// and zsync 0.6.2 loops forever without it.
const multipartPreamble = "\r\n"

// addPreamble counts the CRLF a multipart body gets before its first
// boundary in Content-Length; Write and ReadFrom send it first.
func (w *bodyWriter) addPreamble(code int) {
	if code != http.StatusPartialContent {
		return
	}
	h := w.Header()
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "multipart/byteranges" {
		return
	}
	if n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64); err == nil {
		h.Set("Content-Length", strconv.FormatInt(n+int64(len(multipartPreamble)), 10))
	}
	w.preamble = true
}

// span is the part of the representation a 200 or 206 carries.
type span struct {
	start, length int64
	multipart     bool
}

func (w *bodyWriter) span(code int) span {
	sp := span{length: w.rep.Size}
	if code != http.StatusPartialContent {
		return sp
	}
	h := w.Header()
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt == "multipart/byteranges" {
		n, _ := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
		return span{length: n, multipart: true}
	}
	if cr, err := httpfield.ParseContentRange(h.Get("Content-Range")); err == nil && cr.First >= 0 {
		sp.start, sp.length = cr.First, cr.Len()
	}
	return sp
}

// prepare sets Content-Digest (or arranges to compute it) and the body
// faults for a 200 or 206.
func (w *bodyWriter) prepare(code int) error {
	h, f, head := w.Header(), w.s.cfg.faults, w.r.Method == http.MethodHead
	sp := w.span(code)
	trailer := f.trailers && !head
	if algs := w.plan.content; algs != nil {
		switch {
		case head:
			h.Set(verify.ContentDigest, w.plan.formatContent(verify.EmptyDigests(algs)))
		case code == http.StatusOK:
			ds, err := w.rep.Digests(w.r.Context(), algs)
			if err != nil {
				return err
			}
			h.Set(verify.ContentDigest, w.plan.formatContent(ds))
		case !sp.multipart && sp.length <= w.s.cfg.headerDigestAt:
			ds, ok, err := w.s.rangeContentDigests(w.r, w.rep, sp.start, sp.length, algs)
			if err != nil {
				return err
			}
			if ok {
				h.Set(verify.ContentDigest, w.plan.formatContent(ds))
			}
		case !w.reserveHashing(sp.length):
			// over the hashing budgets: Content-Digest is omitted
		case sp.multipart && sp.length <= w.s.cfg.headerDigestAt && !trailer && w.s.held.reserve(sp.length):
			w.hasher = verify.NewHasher(algs)
			w.held = sp.length
			w.buf = bytes.NewBuffer(make([]byte, 0, sp.length))
		case mayTrail(w.r, false):
			w.hasher = verify.NewHasher(algs)
			w.cdTrailer = true
		default:
			// No trailer can carry it (HTTP/1.0): the body keeps its
			// Content-Length, without Content-Digest, and nothing is
			// hashed for it: the budget is given back.
			w.releaseHashing()
		}
	}
	if trailer {
		w.trailers = map[string]string{}
		for _, k := range []string{verify.ReprDigest, verify.LegacyDigest, verify.ContentDigest} {
			if v := h.Get(k); v != "" {
				w.trailers[k] = v
				h.Del(k)
			}
		}
	}
	w.declareTrailers()
	if f.rangeShift != 0 && code == http.StatusPartialContent && !sp.multipart {
		h.Set("Content-Range", shiftRange(sp, w.rep.Size, f.rangeShift))
	}
	w.setBodyFaults(sp, head)
	w.filtered = w.hasher != nil || w.flipAt >= 0 || w.truncAt >= 0 || f.rate > 0
	if f.rate > 0 {
		w.start = time.Now() // the rate limit's origin (throttle)
	}
	return nil
}

// reserveHashing reserves n bytes of streamed hashing for the client.
func (w *bodyWriter) reserveHashing(n int64) bool {
	if !w.s.hashing.reserve(clientOf(w.r), n) {
		return false
	}
	w.hashing = n
	return true
}

// releaseHashing gives back what reserveHashing took.
func (w *bodyWriter) releaseHashing() {
	w.s.hashing.release(clientOf(w.r), w.hashing)
	w.hashing = 0
}

// declareTrailers announces the trailer fields and drops Content-Length, so
// that HTTP/1.1 uses the chunked coding, which can carry them.
func (w *bodyWriter) declareTrailers() {
	var names []string
	for k := range w.trailers {
		names = append(names, k)
	}
	if w.cdTrailer && w.trailers[verify.ContentDigest] == "" {
		names = append(names, verify.ContentDigest)
	}
	if len(names) == 0 {
		return
	}
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Trailer", strings.Join(names, ", "))
}

func (w *bodyWriter) setBodyFaults(sp span, head bool) {
	f := w.s.cfg.faults
	if head {
		return
	}
	if f.flipAt >= 0 {
		if sp.multipart {
			w.flipAt = f.flipAt
		} else if f.flipAt >= sp.start && f.flipAt < sp.start+sp.length {
			w.flipAt = f.flipAt - sp.start
		}
	}
	if f.flipEvery > 0 && !sp.multipart && w.flipAt < 0 {
		w.flipAt = flipEvery(sp.start, sp.length, f.flipEvery)
	}
	if f.truncateAt >= 0 && f.truncateAt < sp.length {
		w.truncAt = f.truncateAt
	}
}

// shiftRange formats a Content-Range announcing sp moved by d bytes.
func shiftRange(sp span, size, d int64) string {
	last := sp.start + sp.length - 1
	if last+d >= size || sp.start+d < 0 {
		d = -d
	}
	return fmt.Sprintf("bytes %d-%d/%d", sp.start+d, last+d, size)
}
