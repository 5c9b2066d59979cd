package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// request describes one request of an audit.
type request struct {
	label  string      // how the request is named in messages, e.g. "HEAD"
	method string      // GET or HEAD
	header http.Header // added to Options.Header
	// pick chooses the window [lo, hi) of the body kept in memory from the
	// Content-Length (-1 when unknown); keepAll keeps the whole body (up to
	// MaxBody) in a temporary file, so memory stays flat.
	pick    func(n int64) (lo, hi int64)
	keepAll bool
	// reference hashes the body with every algorithm hdig computes: it is
	// what other responses' Repr-Digest is compared with (reprSums,
	// versionRef), whatever algorithm they name.
	reference bool
	// headersOnly closes the body unread, unless a trailer section may
	// follow it (mayTrail): a digest field there is read as in the header.
	headersOnly bool
	// noTrailer, with headersOnly, closes the body unread even when a
	// trailer may follow: the check reads no field a trailer may carry.
	noTrailer bool
}

// response is what an audit keeps of one response.
type response struct {
	label   string
	status  int
	request *http.Request // the request answered (after redirects), for "@path";req and the like
	header  http.Header
	trailer http.Header
	size    int64           // body bytes read
	sums    []verify.Digest // digests of the whole body; nil when not read whole
	kept    []byte          // the kept window
	spool   *os.File        // the whole body with keepAll; removed by close
	keptAt  int64           // offset of kept in the body
	capped  bool            // the body was longer than MaxBody and not hashed
	err     error           // the body could not be read to the end
}

// close removes the spooled body, if any.
func (r *response) close() {
	if r != nil && r.spool != nil {
		r.spool.Close()
		os.Remove(r.spool.Name())
		r.spool = nil
	}
}

// body reads the spooled body from its start.
func (r *response) body() io.Reader { return io.NewSectionReader(r.spool, 0, r.size) }

// values returns the lines of a field from the header and the trailer
// section (RFC 9530 §6.4: Integrity fields may be trailers).
func (r *response) values(name string) []string {
	return append(r.header.Values(name), r.trailer.Values(name)...)
}

// digests parses an Integrity field of the response, header and trailer
// together. The merge keeps one value per algorithm, the trailer's; a
// header value that differs is another statement about the same bytes,
// which a client reading the header acts on, so it is added as a member of
// its own: every comparison then checks both (verify.Agree).
func (r *response) digests(name string) verify.DigestField {
	f := verify.ParseDigestField(name, r.values(name))
	hdr := verify.ParseDigestField(name, r.header.Values(name))
	tr := verify.ParseDigestField(name, r.trailer.Values(name))
	for _, c := range verify.Agree(hdr, tr) {
		d := verify.Digest{Algorithm: c.Algorithm, Value: c.Expected}
		if !holds(f.Digests, d) && !holds(f.Shadowed, d) { // the merge kept it already: compared once
			f.Digests = append(f.Digests, d)
		}
	}
	return f
}

// encoding returns the Content-Encoding, "" for identity.
func (r *response) encoding() string {
	return httpfield.ContentCoding(r.header.Values("Content-Encoding"))
}

// do sends one request and reads its body within the bounds of the options.
// The error is about the exchange itself (the origin could not be reached);
// a body that breaks off is recorded in response.err.
func (a *audit) do(ctx context.Context, q request) (*response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(ctx, q.method, a.url, nil)
	if err != nil {
		return nil, err
	}
	own := a.home == "" || fetch.SameOrigin(a.url, a.home)
	for k, vs := range a.opts.Header {
		if own || !fetch.IsCredential(k) { // credentials stay with the audited URL's origin
			req.Header[k] = append([]string(nil), vs...)
		}
	}
	fetch.OmitFields(req.Header, a.opts.Omit)
	for k, vs := range q.header {
		req.Header[k] = vs
	}
	req.Host = req.Header.Get("Host") // -H 'Host: NAME' (a credential: own origin only)
	timer := time.AfterFunc(a.opts.Timeout, func() { cancel(errTimeout) })
	defer timer.Stop()
	resp, err := a.opts.Client.Do(req)
	if err != nil {
		return nil, exchangeError(ctx, err)
	}
	defer resp.Body.Close()
	r := &response{label: q.label, status: resp.StatusCode, request: resp.Request, header: resp.Header}
	if !q.headersOnly || (!q.noTrailer && q.method != http.MethodHead && mayTrail(resp)) {
		body := &stallReader{r: resp.Body, timer: timer, timeout: a.opts.Timeout}
		if err := a.readBody(r, body, q, resp); err != nil {
			r.err = exchangeError(ctx, err)
		}
	}
	r.trailer = resp.Trailer
	return r, nil
}

// readBody hashes the body, keeps the requested window and stops at MaxBody.
func (a *audit) readBody(r *response, body io.Reader, q request, resp *http.Response) error {
	hasher := verify.NewHasher(hashAlgorithms(resp, q.reference))
	defer hasher.Close()
	var lo, hi int64
	if q.pick != nil {
		lo, hi = q.pick(resp.ContentLength)
	}
	keep := &window{lo: lo, hi: hi}
	var sink io.Writer = keep
	if q.keepAll {
		f, err := os.CreateTemp("", "hdig-check-*")
		if err != nil {
			return err
		}
		r.spool, sink = f, f
	}
	n, err := io.Copy(io.MultiWriter(hasher, sink), io.LimitReader(body, a.opts.MaxBody+1))
	r.size, r.kept, r.keptAt = n, keep.buf, lo
	if err != nil {
		return err
	}
	if n > a.opts.MaxBody {
		r.capped = true
		r.close()
		return nil
	}
	r.sums = hasher.Sums()
	return nil
}

// mayTrail reports whether a trailer section may follow the body. A
// trailer need not be announced (Go's client keeps those the Trailer field
// did not name), so that is whenever the framing allows one: a chunked
// HTTP/1.1 body (no Content-Length) or HTTP/2 and later.
func mayTrail(resp *http.Response) bool {
	return len(resp.Trailer) > 0 || len(resp.Header.Values("Trailer")) > 0 || resp.ContentLength < 0 || resp.ProtoMajor >= 2
}

// hashAlgorithms returns the algorithms a body is hashed with: the Active
// ones and every one the header's digest fields name (those outside RFC
// 9530 included); every one hdig computes (verify.All: x-amz-checksum-crc32
// and -crc64nvme name ones outside the registry) for a reference body, or
// when the digests may come as trailers (mayTrail).
func hashAlgorithms(resp *http.Response, reference bool) []verify.Algorithm {
	h := resp.Header
	want := map[string]bool{}
	if reference || mayTrail(resp) {
		for _, alg := range verify.All {
			want[alg.Key] = true
		}
	}
	for _, name := range []string{verify.ReprDigest, verify.ContentDigest} {
		for _, d := range verify.ParseDigestField(name, h.Values(name)).Digests {
			want[d.Algorithm] = true
		}
	}
	for _, f := range outsideFields(h) {
		for _, d := range f.Digests {
			want[d.Algorithm] = true
		}
	}
	var out []verify.Algorithm
	for _, alg := range verify.All {
		if alg.Status == verify.Active || want[alg.Key] {
			out = append(out, alg)
		}
	}
	return out
}

// errTimeout is the cause of a request cancelled for its stall timeout.
var errTimeout = errors.New("timed out")

// exchangeError describes a failed exchange as fetch does (TransportProblem);
// a stall or --max-time is named as such.
func exchangeError(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	var limit MaxTimeError
	if errors.Is(cause, errTimeout) || errors.As(cause, &limit) {
		return cause
	}
	return fetch.TransportProblem(err)
}

// stallReader restarts the stall timer whenever bytes arrive.
type stallReader struct {
	r       io.Reader
	timer   *time.Timer
	timeout time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(s.timeout)
	}
	return n, err
}

// window is an io.Writer that keeps the bytes at offsets [lo, hi) of the
// stream written to it.
type window struct {
	lo, hi, off int64
	buf         []byte
}

func (w *window) Write(p []byte) (int, error) {
	start, end := max(w.lo, w.off), min(w.hi, w.off+int64(len(p)))
	if start < end {
		w.buf = append(w.buf, p[start-w.off:end-w.off]...)
	}
	w.off += int64(len(p))
	return len(p), nil
}

// String describes a response in messages: "HEAD 200".
func (r *response) String() string {
	return fmt.Sprintf("%s %d", r.label, r.status)
}

// holds reports whether ds has d, its algorithm and value.
func holds(ds []verify.Digest, d verify.Digest) bool {
	return slices.ContainsFunc(ds, func(x verify.Digest) bool {
		return x.Algorithm == d.Algorithm && bytes.Equal(x.Value, d.Value)
	})
}
