package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// Do performs the request, streams the body through the verifiers into
// sink, and commits the sink only when the verdict allows it. On error the
// sink has been aborted. Failed attempts are retried req.Retry times with
// backoff when the failure is transient and the sink can be reset.
func (c *Client) Do(ctx context.Context, req *Request, sink Sink) (*Result, error) {
	ctx = withCredentialsFor(ctx, req.URL)
	if err := req.digestBody(); err != nil {
		sink.Abort()
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		res, err := c.once(ctx, req, sink)
		if err == nil && req.BeforeCommit != nil {
			err = req.BeforeCommit(res)
		}
		if err == nil {
			if res != nil {
				res.Retries = attempt
			}
			if res != nil && res.Unchanged {
				// Nothing to release: the caller's copy stands.
				sink.Abort()
				return res, nil
			}
			if err := sink.Commit(); err != nil {
				return res, &writeError{err: err}
			}
			return res, nil
		}
		if attempt >= req.Retry || !retryable(err) || ctx.Err() != nil || sink.Reset() != nil {
			sink.Abort()
			return res, err
		}
		if !sleep(ctx, req.backoff(attempt)) {
			sink.Abort()
			return res, ctx.Err()
		}
	}
}

// once makes one attempt; it neither commits nor aborts the sink.
func (c *Client) once(ctx context.Context, req *Request, sink Sink) (*Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	method := req.method()
	hreq, err := req.build(method)
	if err != nil {
		return nil, err
	}
	hreq = hreq.WithContext(withBaseOffer(withDictOffer(withSentHook(ctx, req.OnRequest), req.dict), req.bases))
	resp, err := c.http.Do(hreq)
	if err != nil {
		return refusedRedirect(req, resp), c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	if req.OnResponse != nil {
		req.OnResponse(resp)
	}
	res := &Result{
		URL:      resp.Request.URL.Redacted(),
		Status:   resp.StatusCode,
		Header:   resp.Header,
		ETag:     resp.Header.Get("ETag"),
		Encoding: httpfield.ContentCoding(resp.Header.Values("Content-Encoding")),
		Strategy: StrategyFull,
		Pieces:   1,

		RequestURL: req.URL,
		at:         time.Now(),
		answers:    resp.Request,
	}
	if method == http.MethodHead {
		res.Strategy = StrategyHead
	}
	if req.Body != nil {
		res.Sent = req.Body.Size
	}
	if resp.StatusCode >= 400 {
		se := statusError(resp, req.KeepErrorBody)
		res.Received = se.read
		return res, se
	}
	if err := unasked(resp); err != nil {
		return res, err
	}
	if err := req.Limits.checkLength(resp.ContentLength); err != nil && method != http.MethodHead {
		return res, err
	}
	held, _ := sink.(*HeldSink)
	if held != nil {
		held.expect(-1) // a 226 or a decoded body: the length written is not known
	}
	if req.intercept != nil {
		if ok, err := req.intercept(ctx, resp, sink, res); ok {
			return c.fallback(ctx, req, sink, res, err)
		}
	}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		// The caller's own conditions held: its copy is current. A 304 is
		// not a body; there is nothing to write or to hash.
		res.Strategy, res.Unchanged = StrategyNotModified, true
		v, n, err := notModifiedVerdict(resp.Header, req, sink, "a 304 carries no content: it says the copy the request's conditions name is current")
		res.Verdict, res.Bytes = v, n // n: FILE's size when the user's digests were compared with it
		if err != nil {
			return res, err
		}
		return res, verdictError(res, req, false)
	case method == http.MethodHead:
		res.Verdict = noContentVerdict(resp.Header, req, "HEAD carries no content to check it against")
		return res, verdictError(res, req, false)
	}
	hdr := responseFields(resp.Header)
	hasher := verify.NewHasher(bodyAlgorithms(req, resp, hdr))
	defer hasher.Close()

	idle := newIdleReader(resp.Body, c.timeout, cancel)
	defer idle.stop()
	counted := &countingReader{r: idle, bar: req.progress(resp.ContentLength)}
	body := io.TeeReader(counted, hasher)
	var out io.Reader = body
	parts, err := rangesBody(req, resp, res, &out)
	if err != nil {
		return res, err
	}
	dict := req.dictFor(res.Encoding, resp.Request.URL) // a dcb or dcz answer to the dictionary offered
	decoded := dict != nil || req.Compressed && encoded(res.Encoding)
	var plain *verify.Hasher // the decoded bytes, for --expect and Unencoded-Digest
	coded := out             // the body as rangesBody checks it (Content-Range, multipart)
	if decoded {
		dec, done, err := dictDecoder(coded, res.Encoding, dict.bytesOrNil(), dictLimits(req.Limits))
		var re *readError
		if dict != nil && errors.As(err, &re) {
			return res, c.bodyError(ctx, err, counted.count(), resp.ContentLength) // the connection failed, not the coding
		} else if err != nil && dict != nil {
			return c.dictFallback(ctx, req, sink, res, dictFailed(res.Encoding, err))
		} else if err != nil {
			return res, protocolErrorf("%v", err)
		}
		defer done()
		plain = verify.NewHasher(plainAlgorithms(req, resp, hdr, dict))
		defer plain.Close()
		out = io.TeeReader(dec, plain)
	}
	// The decoded output may copy the dictionary: its bytes are allowed
	// once beside the ratio's bound on the bytes received, not counted as
	// input the ratio multiplies (a few hundred bytes repeating a 64 MiB
	// dictionary would be allowed 64 GiB).
	bounded := &boundedWriter{w: sinkWriter{sink}, lim: req.Limits, in: counted.count, given: dict.size(), expands: decoded}
	if held != nil && out == body {
		held.expect(resp.ContentLength) // the body's length, as written
	}
	var n int64
	if out == body {
		n, err = copyHashed(bounded, counted, hasher) // no tee: read into the hasher's buffers
	} else {
		buf := copyBufs.Get().(*[copyBufSize]byte)
		n, err = io.CopyBuffer(bounded, out, buf[:])
		copyBufs.Put(buf)
	}
	if bounded.err != nil {
		err = bounded.err // whatever the decoder made of it
	}
	if err == nil && decoded {
		// Hash whatever the decoder left unread (padding after the stream).
		_, err = io.Copy(io.Discard, coded)
	}
	res.Bytes, res.Received = n, counted.count()
	if parts != nil {
		res.Pieces = parts()
	}
	if err != nil {
		err = c.bodyError(ctx, err, counted.count(), resp.ContentLength)
		var le *limitError
		if dict != nil && errors.As(err, &le) && le.ratio {
			return c.dictFallback(ctx, req, sink, res, dictFailed(res.Encoding, err))
		}
		if !decoded || !errors.Is(err, ErrProtocol) {
			return res, err
		}
		// The encoded bytes are what the digests cover: a body that does
		// not decode may still be reported as the mismatch it is.
		if _, derr := io.Copy(io.Discard, body); derr != nil {
			return res, err
		}
		res.Received = counted.count()
		sums := hasher.Sums()
		res.Verdict = bodyVerdict(hdr, responseFields(resp.Trailer), sums, reprBasisFor(req, resp, counted.count(), sums).coded(res.Encoding, decoded, nil), req)
		verr := verdictError(res, req, true)
		if dict != nil {
			if errors.Is(verr, ErrMismatch) {
				err = verr // the bytes came damaged: that is why they did not decode
			}
			return c.dictFallback(ctx, req, sink, res, dictFailed(res.Encoding, err))
		}
		if errors.Is(verr, ErrMismatch) {
			return res, verr
		}
		return res, err
	}
	res.Trailer = resp.Trailer
	res.Decoded = decoded
	sums := hasher.Sums()
	if !decoded {
		res.setSHA256(sums)
	} else {
		res.plainSHA256 = sha256Of(plain.Sums())
	}
	basis := reprBasisFor(req, resp, counted.count(), sums).coded(res.Encoding, decoded, plain)
	res.Verdict = bodyVerdict(hdr, responseFields(resp.Trailer), sums, basis, req)
	addPartChecks(&res.Verdict, coded)
	if !req.Compressed && !decoded {
		warnEncoded(&res.Verdict, res.Encoding)
	}
	if len(req.Ranges) > 0 && resp.StatusCode == http.StatusOK {
		res.Verdict.Warn("the origin ignored Range and sent the whole representation: it was written whole, as curl does")
	}
	verr := verdictError(res, req, basis.content)
	if dict == nil {
		return res, verr
	}
	if errors.Is(verr, ErrMismatch) {
		return c.dictFallback(ctx, req, sink, res, dictFailed(res.Encoding, verr))
	}
	res.Strategy, res.Dictionary = StrategyDictionary, dict.use(res.Encoding)
	return res, verr
}

// refusedRedirect is the result of a request whose redirect the client
// refused to follow (--max-redirs, a hop refused), which net/http returns
// beside the error, its body closed: that response is the last answer, seen
// by OnResponse (-i, -v: seeRefused) and reported (-w's %{http_code},
// --json's status) as curl does. nil for an error that came without one.
func refusedRedirect(req *Request, resp *http.Response) *Result {
	if !seeRefused(req, resp) {
		return nil
	}
	return &Result{URL: resp.Request.URL.Redacted(), Status: resp.StatusCode, Header: resp.Header,
		Strategy: StrategyFull, Pieces: 1, RequestURL: req.URL, answers: resp.Request}
}

// seeRefused hands the response of a refused redirect (nil: none came) to
// OnResponse, as any answer is, and says whether there was one. A
// download's requests (sendTo) see it too: a piece's answers go to -v as
// every answer does, and -i/-D show none once a final answer was shown
// (headerDump.final), so a first request's refused redirect is the one
// they print.
func seeRefused(req *Request, resp *http.Response) bool {
	if resp == nil {
		return false
	}
	if req.OnResponse != nil {
		req.OnResponse(resp)
	}
	return true
}

// progress announces a body of size bytes (-1 unknown) to req.Progress
// and returns the bar its bytes go to (nil without one). A retry announces
// its body again: the bar starts over.
func (r *Request) progress(size int64) PieceProgress {
	if r.Progress == nil {
		return nil
	}
	r.Progress.Start(size, 0)
	return r.Progress.Piece(0, size, 0)
}

// fallback repeats a request once as a plain full GET when the response an
// intercept took over could not be used (a corrupt delta, a missing base).
func (c *Client) fallback(ctx context.Context, req *Request, sink Sink, res *Result, err error) (*Result, error) {
	if ctx.Err() != nil && err != nil {
		return res, context.Canceled
	}
	if !errors.Is(err, errDeltaFailed) || req.plain == nil {
		return res, err
	}
	if rerr := sink.Reset(); rerr != nil {
		return res, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	why := strings.TrimPrefix(err.Error(), errDeltaFailed.Error()+": ")
	full, ferr := c.once(ctx, req.plain, sink)
	if full != nil {
		full.Verdict.Warn(fmt.Sprintf("%s; fetched in full instead", why))
	}
	switch {
	case ferr == nil, ctx.Err() != nil, errors.Is(ferr, ErrUnverified), errors.Is(ferr, ErrMismatch):
		// The whole was received: its verdict stands (a mismatch is 1).
		return full, ferr
	}
	// Contract: a delta that could not be used and a full refetch that
	// failed too is a protocol error no fallback could repair (exit 5).
	return full, fmt.Errorf("%w: %s, and the full refetch failed: %v", ErrProtocol, why, ferr)
}

// encoded says a Content-Encoding value names a coding.
func encoded(enc string) bool { return enc != "" && !strings.EqualFold(enc, "identity") }

// warnEncoded notes that an encoded body was written as received.
func warnEncoded(v *verify.Verdict, enc string) {
	if encoded(enc) {
		v.Warn(fmt.Sprintf("the body is %s-encoded and was written as received (use --compressed to decode it)", enc))
	}
}

// unasked fails a 206 to a request without Range, a 226 to one without
// A-IM, a 304 to one without a condition it answers: its body is not the
// representation, and written as it would replace FILE with a fragment, a
// delta or nothing.
func unasked(resp *http.Response) error {
	switch h := resp.Request.Header; {
	case resp.StatusCode == http.StatusPartialContent && h.Get("Range") == "":
		return protocolErrorf("the origin answered %s to a request without Range", httpfield.Printable(resp.Status))
	case resp.StatusCode == http.StatusIMUsed && h.Get("A-IM") == "":
		return protocolErrorf("the origin answered %s to a request without A-IM", httpfield.Printable(resp.Status))
	case resp.StatusCode == http.StatusNotModified && h.Get("If-None-Match") == "" && h.Get("If-Modified-Since") == "":
		return protocolErrorf("the origin answered %s to a request without If-None-Match or If-Modified-Since", httpfield.Printable(resp.Status))
	}
	return nil
}

// verdictError turns an outcome into an error: any mismatch fails, and a
// required digest that did not verify fails.
func verdictError(res *Result, req *Request, full bool) error {
	v := &res.Verdict
	res.contentWhole = full
	if bad := v.Mismatches(); len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrMismatch, bad[0])
	}
	if req.Trust != nil {
		if err := req.Trust.authenticate(res, full); err != nil {
			return err
		}
	}
	if req.RequireDigest {
		if res.Outcome() != verify.Verified {
			return fmt.Errorf("%w (--require-digest; accepted: %s)", ErrUnverified, strings.Join(req.Policy.Accept, ", "))
		}
	}
	return nil
}

// provesWhole says an accepted digest of the whole representation matched:
// Repr-Digest, the obsolete Digest, the user's, one outside RFC 9530
// (Unencoded-Digest, x-goog-hash, x-amz-checksum-*), or with full, one of
// this message's content (Content-Digest, Content-MD5).
func provesWhole(v *verify.Verdict, full bool) bool {
	for _, c := range v.Checks {
		if c.Result != verify.Match {
			continue
		}
		if full || (c.Field != verify.ContentDigest && c.Field != verify.ContentMD5) {
			return true
		}
	}
	return false
}

// transportError classifies an error from sending the request.
func (c *Client) transportError(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), ErrIdleTimeout) {
		return networkError(fmt.Errorf("%w after %s", ErrIdleTimeout, c.timeout))
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return context.Canceled
	}
	var ie *inputError
	if errors.As(err, &ie) {
		return ie // the request body's file (sameBytes), not the network
	}
	var re *redirectError
	if errors.As(err, &re) {
		// The redirect refused says which URL; net/http's "Get LOCATION:"
		// before it names the Location as written, often relative.
		err = re
	}
	return networkError(transportProblem(err))
}

// bodyError classifies an error while reading the body: the connection's
// errors are network failures, a decoder's are protocol errors.
func (c *Client) bodyError(ctx context.Context, err error, got, want int64) error {
	cause := context.Cause(ctx)
	var re *readError
	var we *writeError
	switch {
	case errors.Is(cause, ErrIdleTimeout):
		return networkError(fmt.Errorf("%w after %s (%d bytes received)", ErrIdleTimeout, c.timeout, got))
	case errors.Is(err, context.Canceled) || errors.Is(cause, context.Canceled):
		return context.Canceled
	case errors.Is(err, ErrProtocol), errors.Is(err, ErrTooLarge), errors.As(err, &we):
		return err
	case errors.As(err, &re):
		if errors.Is(err, io.ErrUnexpectedEOF) && want >= 0 {
			return networkError(fmt.Errorf("body truncated: got %d of %d bytes", got, want))
		}
		return networkError(fmt.Errorf("reading body after %d bytes: %w", got, re.err))
	}
	return protocolErrorf("decoding the body: %v", err)
}

// writeError is a failure to write the output.
type writeError struct{ err error }

func (e *writeError) Error() string   { return "write output: " + e.err.Error() }
func (e *writeError) Unwrap() []error { return []error{ErrOutput, e.err} }

// sinkWriter tags the sink's errors.
type sinkWriter struct{ s Sink }

func (w sinkWriter) Write(p []byte) (int, error) {
	n, err := w.s.Write(p)
	if err != nil {
		err = &writeError{err: err}
	}
	return n, err
}

// MaxErrorBody bounds the error body kept for --fail-with-body.
const MaxErrorBody = 1 << 20

// statusError reads a short excerpt of an error body, and with keep the
// body itself, up to MaxErrorBody bytes.
func statusError(resp *http.Response, keep bool) *StatusError {
	var whole []byte
	if keep {
		whole, _ = io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if keep {
		b = whole[:min(len(whole), 512)]
	}
	ex := httpfield.Printable(string(b))
	if len(ex) > 200 {
		ex = ex[:200] + "…"
	}
	return &StatusError{Code: resp.StatusCode, Status: httpfield.Printable(resp.Status), Excerpt: ex, Body: whole, read: int64(max(len(whole), len(b)))}
}

// retryable says whether a failed attempt may succeed on retry.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code == http.StatusRequestTimeout || se.Code == http.StatusTooManyRequests || se.Code >= 500
	}
	return errors.Is(err, ErrNetwork)
}

// backoff is the wait before retry attempt+1: RetryDelay when set
// (--retry-delay), else 0.5 s doubling to 8 s.
func (r *Request) backoff(attempt int) time.Duration {
	if r.RetryDelay > 0 {
		return r.RetryDelay
	}
	return backoff(attempt)
}

// backoff is the wait before retry attempt+1: 0.5 s doubling to 8 s.
func backoff(attempt int) time.Duration {
	d := 500 * time.Millisecond << attempt
	if d > 8*time.Second || d <= 0 {
		d = 8 * time.Second
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
