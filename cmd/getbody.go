package cmd

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hdig/hdig/fetch"
)

// The request body of hdig get: -d, --data-binary, -T (stdin too).

// body sets the request body from -d, --data-binary or -T.
func (o *getOptions) body(req *fetch.Request) error {
	n := 0
	for _, set := range []bool{len(o.Data)+len(o.Req.DataURLEncode) > 0, o.DataBinary != "", o.UploadFile != "", len(o.Req.Form) > 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usageErrorf("use only one of -d (and --data-urlencode), --data-binary, -T and -F")
	}
	// -d and --data-urlencode are one form: joined with "&", each @FILE read.
	if len(o.Data)+len(o.Req.DataURLEncode) > 0 || o.Req.Get {
		return o.formData(req)
	}
	var err error
	switch {
	case len(o.Req.Form) > 0:
		var ctype string
		req.Body, ctype, err = formBody(o.Req.Form, o.stdin)
		if err == nil && req.Header.Get("Content-Type") == "" {
			req.Header.Set("Content-Type", ctype)
		}
	case o.UploadFile != "" && o.UploadFile != "-":
		req.Body, err = fetch.FileBody(o.UploadFile)
		if req.Method == "" {
			req.Method = http.MethodPut
		}
	case o.UploadFile == "-":
		req.Body, err = fetch.ReaderBody(o.stdin, "")
		if req.Method == "" {
			req.Method = http.MethodPut
		}
	case o.DataBinary != "":
		req.Body, err = o.dataBody(o.DataBinary)
		typeAsForm(req.Header)
	}
	if err != nil {
		return withExit(ExitUsage, fmt.Errorf("request body: %w", err))
	}
	return nil
}

// bodyReadOnce is the first file the request body reads (-T, -d,
// --data-binary, --data-urlencode, -F) that can be read only once: stdin
// ("-", "stdin" in the answer) or any file that is not a regular file (a
// FIFO, /dev/stdin, a device). Each URL reads the body anew, so with
// several URLs every one after the first would send what is left: nothing.
func (o *getOptions) bodyReadOnce() string {
	names := []string{o.UploadFile}
	for _, d := range append([]string{o.DataBinary}, o.Data...) {
		if name, ok := strings.CutPrefix(d, "@"); ok {
			names = append(names, name)
		}
	}
	for _, d := range o.Req.DataURLEncode {
		if i := strings.IndexAny(d, "=@"); i >= 0 && d[i] == '@' {
			names = append(names, d[i+1:])
		}
	}
	for _, f := range o.Req.Form {
		if p, err := parseFormPart(f); err == nil {
			names = append(names, p.file)
		}
	}
	for _, name := range names {
		if name == "-" {
			return "stdin"
		}
		if st, err := os.Stat(name); name != "" && err == nil && !st.Mode().IsRegular() {
			return name
		}
	}
	return ""
}

// expectContinueMin is the body size past which curl sends Expect:
// 100-continue by itself (HTTP/1.1).
const expectContinueMin = 1 << 20

// expectContinue adds Expect: 100-continue to a request whose body is
// over expectContinueMin, unless -H gave an Expect field, as curl does:
// an origin that refuses the body (413, 401, 417) answers before it is
// sent (fetch.Connection.Expect100Timeout, curl's 1 s).
func expectContinue(req *fetch.Request) {
	if _, set := req.Header["Expect"]; set || req.Body == nil || req.Body.Size <= expectContinueMin {
		return
	}
	req.Header.Set("Expect", "100-continue")
}

// typeAsForm gives -d's and --data-binary's body curl's Content-Type,
// application/x-www-form-urlencoded, unless -H gave one.
func typeAsForm(h http.Header) {
	if _, given := h["Content-Type"]; !given { // -H 'Content-Type;' sends it empty
		h.Set("Content-Type", "application/x-www-form-urlencoded")
	}
}

// dataBody is --data-binary's body: DATA, @FILE, or @- for stdin.
func (o *getOptions) dataBody(s string) (*fetch.Body, error) {
	if s == "@-" {
		return fetch.ReaderBody(o.stdin, "")
	}
	if name, ok := strings.CutPrefix(s, "@"); ok {
		return fetch.FileBody(name)
	}
	return fetch.BytesBody([]byte(s)), nil
}

// uploadURL is the URL -T FILE is sent to: one with no file part (an
// empty path, or one ending in "/") gets FILE's name appended,
// percent-encoded but for RFC 3986's unreserved characters, as curl does;
// any other URL, or -T - (stdin has no name), is left as it is.
func uploadURL(rawURL, file string) string {
	if file == "" || file == "-" {
		return rawURL
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Path != "" && !strings.HasSuffix(u.Path, "/")) {
		return rawURL
	}
	name := filepath.Base(file)
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	esc := u.EscapedPath() + b.String()
	u.Path, _ = url.PathUnescape(esc)
	u.RawPath = esc
	return u.String()
}

// onceFlag is a string flag that may be given once (-T, --data-binary):
// hdig sends one body, and keeping either of two values would send another
// than one asked for (several -d are joined with &).
type onceFlag struct {
	s    *string
	what string // "upload", "body"
	set  bool
}

func (f *onceFlag) String() string {
	if f.s == nil {
		return ""
	}
	return *f.s
}

func (f *onceFlag) Set(v string) error {
	if f.set {
		return fmt.Errorf("given twice (%q, then %q): hdig sends one %s", *f.s, v, f.what)
	}
	*f.s, f.set = v, true
	return nil
}

func (f *onceFlag) Type() string { return "string" }
