package cmd

import (
	"net/http"
	"strings"

	"github.com/hdig/hdig/fetch"
)

// verbose sets -v's hooks on req: every request sent for it, and every
// answer, is shown on stderr.
func (o *getOptions) verbose(ios *IOStreams, req *fetch.Request) {
	if o.Verbose {
		req.OnRequest = func(r *http.Request) { dumpRequest(ios, r) }
		req.OnResponse = func(r *http.Response) { dumpResponse(ios.ErrOut, r, "< ") }
	}
}

func chain(a, b func(*http.Response)) func(*http.Response) {
	if a == nil {
		return b
	}
	return func(r *http.Response) { a(r); b(r) }
}

// downloads says whether the fetch goes through fetch.Client.Download
// (pieces, resume, progress): a plain GET to -o FILE. Anything else (a
// method, a body, -r or a Range header, a condition, --compressed) is one
// request.
func (o *getOptions) downloads(req *fetch.Request) bool {
	return o.Output != "" && !o.special && o.plainGet(req)
}

// holds says whether the fetch goes through fetch.Client.Hold: the same
// plain GET, to stdout held back (not -N).
func (o *getOptions) holds(req *fetch.Request) bool {
	return o.Output == "" && !o.NoBuffer && o.plainGet(req)
}

// plainGet: a GET without body, range, condition or --compressed.
func (o *getOptions) plainGet(req *fetch.Request) bool {
	plain := req.Method == "" || strings.EqualFold(req.Method, http.MethodGet)
	return !o.Head && plain && req.Body == nil && len(req.Ranges) == 0 &&
		!req.Compressed && req.Header.Get("Range") == "" && req.Header.Get("If-Range") == "" && !req.Conditional()
}
