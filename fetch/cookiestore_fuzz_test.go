package fetch

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/publicsuffix"
)

// FuzzCookieStore: whatever Set-Cookie fields a response from a host
// sends, the jar keeps only cookies for that host or a parent domain of
// it that is not a public suffix (www.evil.test never sets one for
// victim.test or for test), each kept cookie is sent back to the host at
// its path (what -c writes is what the jar sends), and the jar saved
// loads again to the same file. Seeds in testdata/fuzz/FuzzCookieStore.
func FuzzCookieStore(f *testing.F) {
	f.Add("www.example.com", "a=b; Domain=example.com; Path=/p; Secure\nc=d; Max-Age=60")
	f.Add("www.evil.co.uk", "a=b; Domain=co.uk\nc=d; Domain=.evil.co.uk; HttpOnly")
	f.Add("127.0.0.1", "a=b; Domain=127.0.0.1\nc=d; Domain=0.1")
	f.Add("Example.COM.", "a=b; Path=x\na=; Max-Age=0")
	f.Fuzz(func(t *testing.T, host, fields string) {
		u := &url.URL{Scheme: "https", Host: host, Path: "/dir/f"}
		if u.Hostname() != host || strings.ContainsAny(host, "/?#@") {
			return
		}
		h, ok := cookieHost(u)
		if !ok {
			return
		}
		resp := &http.Response{Header: http.Header{"Set-Cookie": strings.Split(fields, "\n")}}
		j := NewCookieJar()
		j.store(u, resp.Cookies())
		for _, e := range j.kept {
			if e.domain != h && (!strings.HasSuffix(h, "."+e.domain) || publicsuffix.List.PublicSuffix(e.domain) == e.domain) {
				t.Fatalf("a response from %q set a cookie for %q", h, e.domain)
			}
			sent := false
			for _, c := range j.jar.Cookies(&url.URL{Scheme: "https", Host: host, Path: e.path}) {
				sent = sent || c.Name == e.name && c.Value == e.value
			}
			if !sent {
				t.Fatalf("kept %+v, not sent back to %s%s", e, host, e.path)
			}
		}
		var a, b bytes.Buffer
		j.Save(&a)
		j2 := NewCookieJar()
		if err := j2.Load(bytes.NewReader(a.Bytes())); err != nil {
			t.Fatalf("saved jar does not load: %v\n%s", err, a.String())
		}
		j2.Save(&b)
		if a.String() != b.String() {
			t.Fatalf("save, load, save differs:\n%s\n%s", a.String(), b.String())
		}
	})
}
