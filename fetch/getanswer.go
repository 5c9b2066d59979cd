package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

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
