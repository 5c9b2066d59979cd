package fetch

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// inHeader says the value c matched is the header's own member of its
// field, the value a signature over the header covers. A match against a
// value from elsewhere (what a sidecar recorded of an earlier response on
// -C, a later piece's field) is no signed field's, whatever the header's
// field of that name holds: the resume 206's Content-Digest is of its
// piece, not the whole the recorded one matched.
func inHeader(h http.Header, c verify.Check) bool {
	v, ok := verify.ParseDigestField(c.Field, h.Values(c.Field)).Get(c.Algorithm)
	return ok && bytes.Equal(v, c.Expected)
}

// signable: the fields whose match, signed, proves the bytes.
func signable(field string, full bool) bool {
	switch field {
	case verify.ReprDigest, verify.UnencodedDigest:
		return true
	case verify.ContentDigest:
		return full
	}
	return false
}

func unsignedWhy(res *Result, s Signed) string {
	valid := 0
	for _, c := range s.Checks {
		if c.Result == SignatureValid {
			valid++
		}
	}
	switch {
	case !res.Verdict.Verified(""):
		return "no digest verified the bytes, so no signature can prove them"
	case len(s.Checks) == 0:
		return "the response carries no signature (Signature-Input, Signature)"
	case valid == 0:
		return fmt.Sprintf("none of its %d signatures is by a trusted key", len(s.Checks))
	}
	if res.Decoded {
		for _, c := range res.Verdict.Checks {
			if _, ok := s.Covers(c.Field, c.Algorithm); ok && c.Result == verify.Match {
				return fmt.Sprintf("the body was written decoded (%s), and no valid signature by a trusted key that covers its %s covers Content-Encoding: the digest is of the encoded bytes, and the coding is not signed", res.Encoding, c.Field)
			}
		}
	}
	return "no valid signature by a trusted key covers, in the header, a digest that verified the bytes"
}

func describeSig(c SignatureCheck) string {
	return fmt.Sprintf("%s (keyid %q): %s", c.Label, c.KeyID, c.Reason)
}

// requestOf is the request a result answers, for components with `req`:
// the one sent (method, URL, header fields), the last after redirects;
// without it (a result made by hand), a GET of the URL it ended at.
func requestOf(res *Result) *http.Request {
	if res.answers != nil {
		return res.answers
	}
	raw := res.URL
	if raw == "" {
		raw = res.RequestURL
	}
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return nil
	}
	return &http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: http.Header{}}
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func paramOf(c httpsig.Component, name string) (any, bool) {
	if c.Params == nil {
		return nil, false
	}
	return c.Params.Get(name)
}

func hasParam(c httpsig.Component, name string) bool {
	_, ok := paramOf(c, name)
	return ok
}

// bindsTarget says a response signature covers the request's path, so it
// cannot be moved to another URL of the origin ("@path", "@target-uri" or
// "@request-target" with req), and whether it covers the request's query
// too ("@query", "@target-uri" or "@request-target" with req; one
// "@query-param" binds one parameter, not the query).
func bindsTarget(p httpsig.Params) (path, query bool) {
	for _, c := range p.Components {
		if !hasParam(c, "req") {
			continue
		}
		switch c.Name {
		case "@target-uri", "@request-target":
			path, query = true, true
		case "@path":
			path = true
		case "@query":
			query = true
		}
	}
	return path, query
}

// targetOf is the path of the URL raw, and its query when withQuery.
func targetOf(raw string, withQuery bool) string {
	p := pathOf(raw)
	if u, err := url.Parse(raw); err == nil && withQuery && u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// hasQuery says the URL raw has a query.
func hasQuery(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.RawQuery != "" || u.ForceQuery)
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.EscapedPath()
}
