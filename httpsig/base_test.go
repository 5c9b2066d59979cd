package httpsig

import (
	"crypto/tls"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func newRequest(t *testing.T, method, target string, h http.Header) *http.Request {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	r := &http.Request{Method: method, URL: u, Host: u.Host, Header: h}
	if r.Header == nil {
		r.Header = http.Header{}
	}
	return r
}

// componentLine is the base line of one component over m.
func componentLine(t *testing.T, m Message, id string) (string, error) {
	t.Helper()
	c, err := ParseComponent(id)
	if err != nil {
		return "", err
	}
	b, err := Base(m, Params{Components: []Component{c}})
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return line, nil
}

// TestFieldComponents: the examples of RFC 9421 §2.1, §2.1.1–§2.1.3.
func TestFieldComponents(t *testing.T) {
	h := http.Header{}
	h.Add("Host", "www.example.com")
	h.Add("Date", "Tue, 20 Apr 2021 02:07:56 GMT")
	h.Add("X-OWS-Header", "   Leading and trailing whitespace.   ")
	h.Add("X-Obs-Fold-Header", "Obsolete\r\n    line folding.")
	h.Add("Cache-Control", "max-age=60")
	h.Add("Cache-Control", "   must-revalidate")
	h.Add("Example-Dict", " a=1,    b=2;x=1;y=2,   c=(a   b   c)")
	h.Add("X-Empty-Header", "")
	h.Add("Example-Header", "value, with, lots")
	h.Add("Example-Header", "of, commas")
	h.Add("Example-Dict2", "a=1, b=2;x=1;y=2, c=(a   b    c), d")
	m := RequestMessage(newRequest(t, "GET", "https://www.example.com/", h))
	m.FieldTypes = map[string]FieldType{"example-dict": TypeDictionary}
	for _, tc := range []struct{ id, want string }{
		{"host", `"host": www.example.com`},
		{"date", `"date": Tue, 20 Apr 2021 02:07:56 GMT`},
		{"x-ows-header", `"x-ows-header": Leading and trailing whitespace.`},
		{"x-obs-fold-header", `"x-obs-fold-header": Obsolete line folding.`},
		{"cache-control", `"cache-control": max-age=60, must-revalidate`},
		{"example-dict", `"example-dict": a=1,    b=2;x=1;y=2,   c=(a   b   c)`},
		{"x-empty-header", `"x-empty-header": `},
		{`"example-dict";sf`, `"example-dict";sf: a=1, b=2;x=1;y=2, c=(a b c)`},
		{`"example-dict2";key="a"`, `"example-dict2";key="a": 1`},
		{`"example-dict2";key="d"`, `"example-dict2";key="d": ?1`},
		{`"example-dict2";key="b"`, `"example-dict2";key="b": 2;x=1;y=2`},
		{`"example-dict2";key="c"`, `"example-dict2";key="c": (a b c)`},
		{"example-header", `"example-header": value, with, lots, of, commas`},
		{`"example-header";bs`, `"example-header";bs: :dmFsdWUsIHdpdGgsIGxvdHM=:, :b2YsIGNvbW1hcw==:`},
	} {
		got, err := componentLine(t, m, tc.id)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.id, got, err, tc.want)
		}
	}
}

// TestDerivedComponents: the examples of RFC 9421 §2.2.
func TestDerivedComponents(t *testing.T) {
	post := newRequest(t, "POST", "https://www.example.com/path?param=value", nil)
	plain := newRequest(t, "POST", "http://www.example.com/path?param=value", nil)
	q := newRequest(t, "GET", "http://www.example.com/path?param=value&foo=bar&baz=bat%2Dman", nil)
	noq := newRequest(t, "GET", "http://www.example.com/path", nil)
	qp := newRequest(t, "GET", "http://www.example.com/path?param=value&foo=bar&baz=batman&qux=", nil)
	enc := newRequest(t, "GET", "http://www.example.com/parameters?var=this%20is%20a%20big%0Amultiline%20value&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something", nil)
	port := newRequest(t, "GET", "https://WWW.Example.com:443/", nil)
	for _, tc := range []struct {
		r        *http.Request
		id, want string
	}{
		{post, "@method", `"@method": POST`},
		{post, "@target-uri", `"@target-uri": https://www.example.com/path?param=value`},
		{post, "@authority", `"@authority": www.example.com`},
		{plain, "@scheme", `"@scheme": http`},
		{post, "@request-target", `"@request-target": /path?param=value`},
		{post, "@path", `"@path": /path`},
		{q, "@query", `"@query": ?param=value&foo=bar&baz=bat%2Dman`},
		{noq, "@query", `"@query": ?`},
		{qp, `"@query-param";name="baz"`, `"@query-param";name="baz": batman`},
		{qp, `"@query-param";name="qux"`, `"@query-param";name="qux": `},
		{qp, `"@query-param";name="param"`, `"@query-param";name="param": value`},
		{enc, `"@query-param";name="var"`, `"@query-param";name="var": this%20is%20a%20big%0Amultiline%20value`},
		{enc, `"@query-param";name="bar"`, `"@query-param";name="bar": with%20plus%20whitespace`},
		{enc, `"@query-param";name="fa%C3%A7ade%22%3A%20"`, `"@query-param";name="fa%C3%A7ade%22%3A%20": something`},
		{port, "@authority", `"@authority": www.example.com`},
	} {
		got, err := componentLine(t, RequestMessage(tc.r), tc.id)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.id, got, err, tc.want)
		}
	}
	resp := &http.Response{StatusCode: 200, Header: http.Header{}}
	if got, err := componentLine(t, ResponseMessage(resp, nil), "@status"); err != nil || got != `"@status": 200` {
		t.Errorf("@status: got %q, %v", got, err)
	}
}

// TestRequestTargetForms: the request-target forms of §2.2.5 as a server
// receives them.
func TestRequestTargetForms(t *testing.T) {
	for _, tc := range []struct{ method, uri, want string }{
		{"GET", "https://www.example.com/path?param=value", "https://www.example.com/path?param=value"},
		{"CONNECT", "www.example.com:80", "www.example.com:80"},
		{"OPTIONS", "*", "*"},
	} {
		r := newRequest(t, tc.method, "http://www.example.com/", nil)
		r.RequestURI = tc.uri
		got, err := componentLine(t, RequestMessage(r), "@request-target")
		if want := `"@request-target": ` + tc.want; err != nil || got != want {
			t.Errorf("%s %s: got %q, %v; want %q", tc.method, tc.uri, got, err, want)
		}
	}
}

// TestBaseErrors: every case of §2.5 that must produce no base.
func TestBaseErrors(t *testing.T) {
	h := http.Header{}
	h.Add("Example-Dict", "a=1, b=2")
	h.Add("X-Nl", "a\nb")
	h.Add("X-Utf8", "caf\u00e9")
	h.Add("Not-Sf", "a=(")
	r := newRequest(t, "GET", "http://example.com/p?a=1&a=2&b", h)
	req := RequestMessage(r)
	resp := ResponseMessage(&http.Response{StatusCode: 200, Header: http.Header{}}, r)
	for _, tc := range []struct {
		m   Message
		ids []string
	}{
		{req, []string{"x-missing"}},
		{req, []string{"@unknown"}},
		{req, []string{"@status"}},
		{req, []string{`"@method";req`}},
		{req, []string{`"example-dict";key="c"`}},
		{req, []string{`"example-dict";bs;sf`}},
		{req, []string{`"example-dict";foo`}},
		{req, []string{`"@method";sf`}},
		{req, []string{`"@query-param"`}},
		{req, []string{`"@query-param";name="a"`}},
		{req, []string{`"@query-param";name="zz"`}},
		{req, []string{`"x-unknown-type";sf`}},
		{req, []string{`"not-sf";key="a"`}},
		{req, []string{"x-nl"}},
		{req, []string{"x-utf8"}},
		{req, []string{"@method", "@method"}},
		{req, []string{`"example-dict";sf;bs`}},
		{req, []string{`"example-dict";key="a";req`}},
		{req, []string{"@signature-params"}},
		{req, []string{`"x-missing";tr`}},
		{resp, []string{"@method"}},
		{resp, []string{`"@status";req`}},
	} {
		cs, err := ParseComponents(tc.ids)
		if err != nil {
			t.Fatalf("%v: %v", tc.ids, err)
		}
		if b, err := Base(tc.m, Params{Components: cs}); err == nil {
			t.Errorf("%v: base %q, want an error", tc.ids, b)
		}
	}
}

// TestDuplicateIgnoresParamOrder: "foo";bar;baz equals "foo";baz;bar (§2).
func TestDuplicateIgnoresParamOrder(t *testing.T) {
	h := http.Header{"Content-Digest": {"sha-256=:AAAA:"}}
	m := ResponseMessage(&http.Response{StatusCode: 200, Header: h}, newRequest(t, "GET", "http://x/", h))
	cs, err := ParseComponents([]string{`"content-digest";req;sf`, `"content-digest";sf;req`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Base(m, Params{Components: cs}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("Base = %v, want covered twice", err)
	}
}

// TestTrailerComponent: §2.1.4, a trailer field taken with tr, kept
// separate from a header of the same name.
func TestTrailerComponent(t *testing.T) {
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Trailer": {"Expires"}, "Expires": {"never"}},
		Trailer: http.Header{"Expires": {"Wed, 9 Nov 2022 07:28:00 GMT"}}}
	m := ResponseMessage(resp, nil)
	cs, _ := ParseComponents([]string{"@status", "trailer", `"expires";tr`, "expires"})
	b, err := Base(m, Params{Components: cs})
	want := "\"@status\": 200\n\"trailer\": Expires\n\"expires\";tr: Wed, 9 Nov 2022 07:28:00 GMT\n\"expires\": never\n"
	if err != nil || !strings.HasPrefix(string(b), want) {
		t.Fatalf("Base = %q, %v; want prefix %q", b, err, want)
	}
}

// TestTargetURIOnServer: a server's request (origin-form RequestURI, no
// scheme or host in the URL) gives the URI as sent, with the scheme from
// TLS and the authority from Host.
func TestTargetURIOnServer(t *testing.T) {
	r := &http.Request{Method: "GET", Host: "Example.com:443", RequestURI: "/a%2Fb?x=1&y", Header: http.Header{},
		URL: &url.URL{Path: "/a/b", RawPath: "/a%2Fb", RawQuery: "x=1&y"}, TLS: &tls.ConnectionState{}}
	for id, want := range map[string]string{
		"@target-uri":     "https://example.com/a%2Fb?x=1&y",
		"@scheme":         "https",
		"@authority":      "example.com",
		"@path":           "/a%2Fb",
		"@request-target": "/a%2Fb?x=1&y",
	} {
		got, err := componentLine(t, RequestMessage(r), id)
		if w := `"` + id + `": ` + want; err != nil || got != w {
			t.Errorf("%s: got %q, %v; want %q", id, got, err, w)
		}
	}
}
