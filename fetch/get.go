package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
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
