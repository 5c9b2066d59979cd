package cmd

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/spf13/pflag"
)

// requestFlags are curl's flags that shape the request: who asks (-A, -u,
// -e, -b), and how -d's data travels (-G, --data-urlencode, -F).
type requestFlags struct {
	UserAgent     string
	User          string
	Referer       string
	Get           bool
	DataURLEncode []string
	Form          []string
	Cookies       []string
	CookieJar     string

	data []dataArg        // -d and --data-urlencode, in the command line's order
	jar  *fetch.CookieJar // -b FILE's and -c's, shared by the command's URLs
}

func (r *requestFlags) add(f *pflag.FlagSet) {
	f.StringVarP(&r.UserAgent, "user-agent", "A", "", "send User-Agent `NAME` (default hdig)")
	f.StringVarP(&r.User, "user", "u", "", "Basic authentication `USER:PASSWORD`, sent to the URL's origin only, never after a redirect to another")
	f.StringVarP(&r.Referer, "referer", "e", "", "send Referer `URL`")
	f.BoolVarP(&r.Get, "get", "G", false, "send -d and --data-urlencode data as the URL's query in a GET")
	f.Var(&dataFlag{list: &r.DataURLEncode, all: &r.data, encode: true}, "data-urlencode", "`DATA` URL-encoded: content, =content, name=content, @file, name@file (repeatable)")
	f.StringArrayVarP(&r.Form, "form", "F", nil, "multipart/form-data part `NAME=CONTENT`: value, @file (upload), <file (value from file); ;type= sets its type (repeatable)")
	f.StringArrayVarP(&r.Cookies, "cookie", "b", nil, "`DATA`: cookies NAME=VALUE[; N=V] for the URL's origin, or a Netscape cookie FILE read into the jar (repeatable)")
	f.StringVarP(&r.CookieJar, "cookie-jar", "c", "", "write the cookie jar to `FILE` (Netscape format) at the end; - is stdout")
}

// apply adds the headers of -A, -u, -e and -b NAME=VALUE to h, and
// returns the cookie jar (nil without -b FILE or -c).
func (r *requestFlags) apply(h http.Header) (*fetch.CookieJar, error) {
	// -H's fields win over these, as in curl.
	if r.UserAgent != "" && h.Get("User-Agent") == "" {
		h.Set("User-Agent", r.UserAgent)
	}
	// ";auto" alone sends none on the first request, as in curl.
	if ref := strings.TrimSuffix(r.Referer, ";auto"); ref != "" && h.Get("Referer") == "" {
		h.Set("Referer", ref)
	}
	if r.User != "" && h.Get("Authorization") == "" {
		user, pass, ok := strings.Cut(r.User, ":")
		if !ok {
			return nil, usageErrorf("-u %q: want USER:PASSWORD (hdig does not prompt)", user)
		}
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
	}
	for _, c := range r.Cookies {
		if strings.Contains(c, "=") {
			// curl: with a "=", the argument is cookies for this request.
			h.Add("Cookie", c)
		}
	}
	return r.jar, nil
}

// openJar reads -b FILE into the jar that -c writes, once for all the
// command's URLs (they share it, as curl's do).
func (r *requestFlags) openJar() error {
	if r.CookieJar != "" {
		r.jar = fetch.NewCookieJar()
	}
	for _, c := range r.Cookies {
		if strings.Contains(c, "=") {
			continue
		}
		if r.jar == nil {
			r.jar = fetch.NewCookieJar()
		}
		f, err := os.Open(c)
		if err != nil {
			return usageErrorf("-b %s: %v", c, err)
		}
		err = r.jar.Load(f)
		f.Close()
		if err != nil {
			return usageErrorf("-b %s: %v", c, err)
		}
	}
	return nil
}

// saveJar writes the jar to -c FILE, after the last URL; -c - writes it
// to stdout, as curl does.
func (r *requestFlags) saveJar(stdout io.Writer) error {
	if r.CookieJar == "" || r.jar == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := r.jar.Save(&buf); err != nil {
		return err
	}
	if r.CookieJar == "-" {
		if _, err := stdout.Write(buf.Bytes()); err != nil {
			return withExit(ExitUsage, fmt.Errorf("-c -: %w", err))
		}
		return nil
	}
	if err := fetch.WritePrivate(r.CookieJar, buf.Bytes()); err != nil {
		return withExit(ExitUsage, fmt.Errorf("-c: %w", err))
	}
	return nil
}

// urlEncoded is --data-urlencode's argument as curl sends it: @FILE (and
// name@FILE) read, "-" as stdin.
func (o *getOptions) urlEncoded(arg string) (string, error) {
	if i := strings.IndexAny(arg, "=@"); i >= 0 {
		name, content := arg[:i], arg[i+1:]
		if arg[i] == '@' {
			b, err := o.readArg(content)
			if err != nil {
				return "", usageErrorf("--data-urlencode %s: %v", arg, err)
			}
			content = string(b)
		}
		if name == "" {
			return escapeForm(content), nil
		}
		return name + "=" + escapeForm(content), nil
	}
	return escapeForm(arg), nil
}

// escapeForm percent-encodes as curl does: all but A-Z a-z 0-9 - . _ ~,
// space as "+".
func escapeForm(s string) string { return url.QueryEscape(s) }

// withQuery appends data to rawURL's query (-G).
func withQuery(rawURL, data string) string {
	if data == "" {
		return rawURL
	}
	frag := ""
	if i := strings.IndexByte(rawURL, '#'); i >= 0 {
		rawURL, frag = rawURL[:i], rawURL[i:]
	}
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	return rawURL + sep + data + frag
}

// formData joins -d and --data-urlencode with "&", as curl does, into the
// body, or with -G into the URL's query of a GET. -d @FILE (and @-) drops
// the file's carriage returns and line feeds, as curl's -d does.
func (o *getOptions) formData(req *fetch.Request) error {
	var parts []string
	for _, a := range o.Req.data {
		d := a.s
		if a.encode {
			enc, err := o.urlEncoded(d)
			if err != nil {
				return err
			}
			parts = append(parts, enc)
			continue
		}
		if name, ok := strings.CutPrefix(d, "@"); ok {
			b, err := o.readArg(name)
			if err != nil {
				return usageErrorf("-d %s: %v", d, err)
			}
			d = strings.NewReplacer("\r", "", "\n", "").Replace(string(b))
		}
		parts = append(parts, d)
	}
	data := strings.Join(parts, "&")
	if o.Req.Get {
		if o.DataBinary != "" || o.UploadFile != "" || len(o.Req.Form) > 0 {
			return usageErrorf("-G puts -d data in the URL; it cannot send --data-binary, -T or -F")
		}
		req.URL = withQuery(req.URL, data)
		o.URL = req.URL
		return nil
	}
	req.Body = fetch.BytesBody([]byte(data))
	typeAsForm(req.Header)
	return nil
}

// dataArg is one -d (or, encode, --data-urlencode) argument.
type dataArg struct {
	s      string
	encode bool
}

// dataFlag is -d or --data-urlencode: each value is kept in its own list
// and in all, the two flags' values in the command line's order, which is
// the order curl joins them in.
type dataFlag struct {
	list   *[]string
	all    *[]dataArg
	encode bool
}

func (f *dataFlag) Set(v string) error {
	*f.list = append(*f.list, v)
	*f.all = append(*f.all, dataArg{s: v, encode: f.encode})
	return nil
}

func (f *dataFlag) String() string {
	if f.list == nil || len(*f.list) == 0 {
		return ""
	}
	return "[" + strings.Join(*f.list, ",") + "]"
}

func (f *dataFlag) Type() string { return "stringArray" }

// readArg reads FILE, or stdin for "-".
func (o *getOptions) readArg(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(o.stdin)
	}
	return os.ReadFile(name)
}
