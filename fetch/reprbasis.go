package fetch

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// reprBasis is what a response's Repr-Digest is compared with.
type reprBasis struct {
	sums    []verify.Digest // the digests to compare with
	content bool            // sums are of this message's content
	reason  string          // noted on each check compared with sums
	why     string          // when set, Repr-Digest is not checked: this says why
	warning string          // said once when a usable Repr-Digest was not checked
	// decoded says the body was written decoded (--compressed): written
	// are the digests of the decoded bytes, coding the content coding.
	decoded bool
	written []verify.Digest
	coding  string
}

// compare checks a Repr-Digest field against the basis.
func (b reprBasis) compare(f verify.DigestField, p verify.Policy, where string) []verify.Check {
	if b.why != "" {
		if !f.Usable() {
			return nil
		}
		return label(ignoredAll(f, b.why), where)
	}
	cs := verify.Compare(f, b.sums, p)
	if b.reason != "" {
		for i := range cs {
			cs[i].Reason = strings.TrimPrefix(cs[i].Reason+"; "+b.reason, "; ")
		}
	}
	return label(cs, where)
}

// statusBasis is the basis of a response to a GET: its content is the
// representation, unless it is a part of it (RFC 9530 §3, B.3). A 206
// whose Content-Range covers every byte (bytes 0-N-1/N) encloses all of
// it: its Repr-Digest is compared as a 200's is.
func statusBasis(status int, contentRange string, content []verify.Digest) reprBasis {
	if status == http.StatusPartialContent && !coversWhole(contentRange) {
		return reprBasis{why: "partial content: Repr-Digest covers the whole representation"}
	}
	return reprBasis{sums: content, content: true}
}

// coversWhole says a Content-Range value names every byte of a
// representation of known length.
func coversWhole(contentRange string) bool {
	cr, err := httpfield.ParseContentRange(contentRange)
	return err == nil && cr.First == 0 && cr.Total > 0 && cr.Last == cr.Total-1
}

// reprBasisFor decides what a response's Repr-Digest describes (RFC 9530
// §3.1, §3.2, RFC 9110 §6.4.2). A response with content encloses a
// representation, of the resource Content-Location names or of the
// request's status (B.7, B.8, B.10): the digest covers that content. A
// response without content to a state-changing request describes the
// target resource (B.5, B.9): after a PUT that is what was sent (nothing
// sent: empty content), when the response names no other resource
// (Content-Location) and no other content coding; otherwise hdig has not
// seen it and says so.
func reprBasisFor(req *Request, resp *http.Response, received int64, content []verify.Digest) reprBasis {
	if received > 0 || safeMethod(resp.Request.Method) {
		return statusBasis(resp.StatusCode, resp.Header.Get("Content-Range"), content)
	}
	if why := storedWhy(req, resp); why != "" {
		return reprBasis{why: why, warning: "Repr-Digest not checked: " + why}
	}
	sent := req.sent
	if req.Body == nil {
		sent = content // nothing was sent: the digests of empty content
	}
	return reprBasis{sums: sent, reason: fmt.Sprintf("%d without content: compared with the content sent (RFC 9530 §3.1, B.5)", resp.StatusCode)}
}

// safeMethod says a method changes nothing on the origin (RFC 9110 §9.2.1):
// its response's content, if any, is what Repr-Digest describes.
func safeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// storedWhy says why an empty response's Repr-Digest is not about the
// content sent, or "" when it is.
func storedWhy(req *Request, resp *http.Response) string {
	if loc := resp.Header.Get("Content-Location"); loc != "" && !sameResource(resp.Request.URL, loc) {
		return fmt.Sprintf("it describes %s (Content-Location), which hdig has not seen", loc)
	}
	method := resp.Request.Method
	if method != http.MethodPut || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Sprintf("the %d to a %s has no content, and its Repr-Digest describes the target resource, which hdig has not seen", resp.StatusCode, method)
	}
	if sendsPart(req.Header) {
		return "the content sent was a part (Content-Range), and its Repr-Digest describes the whole stored representation, which hdig has not seen"
	}
	got, sent := codingOf(resp.Header), codingOf(req.Header)
	if got != sent {
		return fmt.Sprintf("it describes the stored representation with Content-Encoding %s, not the content sent (%s)", orIdentity(got), orIdentity(sent))
	}
	return ""
}

// sameResource says a Content-Location value names the target URI.
func sameResource(target *url.URL, loc string) bool {
	u, err := target.Parse(loc)
	if err != nil {
		return false
	}
	t := *target
	t.Fragment, u.Fragment = "", ""
	return u.String() == t.String()
}

// codingOf is a message's content coding, "" for identity.
func codingOf(h http.Header) string {
	return httpfield.ContentCoding(h.Values("Content-Encoding"))
}

func orIdentity(c string) string {
	if c == "" {
		return "identity"
	}
	return c
}
