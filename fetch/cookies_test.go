package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

const cookieFile = `# Netscape HTTP Cookie File
127.0.0.1	FALSE	/	FALSE	0	sid	abc
#HttpOnly_127.0.0.1	FALSE	/admin	FALSE	0	adm	1
127.0.0.1	FALSE	/	TRUE	0	sec	s
127.0.0.1	FALSE	/	FALSE	1	old	expired
other.example	FALSE	/	FALSE	0	foreign	x
`

func TestCookieJarLoadSave(t *testing.T) {
	j := NewCookieJar()
	if err := j.Load(strings.NewReader(cookieFile)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := j.Save(&buf); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{"127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc\n", "#HttpOnly_127.0.0.1\tFALSE\t/admin\tFALSE\t0\tadm\t1\n",
		"127.0.0.1\tFALSE\t/\tTRUE\t0\tsec\ts\n", "other.example\tFALSE\t/\tFALSE\t0\tforeign\tx\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("saved jar lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "expired") {
		t.Errorf("an expired cookie was kept:\n%s", got)
	}
	for _, bad := range []string{"a\tb\n", "h\tFALSE\t/\tFALSE\tsoon\tn\tv\n", "\tFALSE\t/\tFALSE\t0\tn\tv\n"} {
		if err := NewCookieJar().Load(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("Load(%q) = %v, want an error naming line 1", bad, err)
		}
	}
}

// TestCookieJarOrigins: the cookie file's cookies go by RFC 6265's host
// and path rules and only to the origin the user asked for; a redirect to
// another origin (here another port of the same host, which RFC 6265
// alone would allow) gets none. Cookies a response sets are kept and
// written by Save.
func TestCookieJarOrigins(t *testing.T) {
	var sawOther []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawOther = append(sawOther, r.Header.Get("Cookie"))
		w.Write([]byte("x"))
	}))
	defer other.Close()
	var saw []string
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		saw = append(saw, r.URL.Path+" "+r.Header.Get("Cookie"))
		http.SetCookie(w, &http.Cookie{Name: "set", Value: "by-origin", Path: "/", MaxAge: 3600})
		if r.URL.Path == "/go" {
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
			return
		}
		w.Write([]byte("x"))
	}))
	defer first.Close()
	j := NewCookieJar()
	if err := j.Load(strings.NewReader(cookieFile)); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Options{FollowRedirects: true, Jar: j})
	if err != nil {
		t.Fatal(err)
	}
	var shown []string // what -v shows: the requests as sent, jar cookies and redirect hops included
	for _, p := range []string{"/", "/admin/x", "/go"} {
		req := &Request{URL: first.URL + p, Header: http.Header{}, Policy: verify.DefaultPolicy()}
		req.OnRequest = func(r *http.Request) { shown = append(shown, r.URL.Path+" "+r.Header.Get("Cookie")) }
		if _, err := c.Get(context.Background(), req, DiscardSink{}); err != nil {
			t.Fatal(err)
		}
	}
	// sec is Secure: net/http/cookiejar counts loopback as a secure context.
	want := []string{"/ sid=abc; sec=s", "/admin/x set=by-origin; adm=1; sid=abc; sec=s", "/go set=by-origin; sid=abc; sec=s"}
	if strings.Join(saw, "|") != strings.Join(want, "|") {
		t.Errorf("origin saw %q, want %q", saw, want)
	}
	if got, want := strings.Join(shown, "|"), strings.Join(append(want, "/ set=by-origin"), "|"); got != want {
		t.Errorf("-v showed %q, want %q", got, want)
	}
	// The origin's own cookie goes on as RFC 6265 says (ports do not
	// separate cookies); none of the user's does.
	if len(sawOther) != 1 || sawOther[0] != "set=by-origin" {
		t.Errorf("the redirect's target saw cookies %q, want only the one the origin set", sawOther)
	}
	var buf bytes.Buffer
	j.Save(&buf)
	if !strings.Contains(buf.String(), "127.0.0.1\tFALSE\t/\tFALSE\t") || !strings.Contains(buf.String(), "\tset\tby-origin\n") {
		t.Errorf("saved jar lacks the cookie the origin set:\n%s", buf.String())
	}
}

// A cookie whose Domain the setting host may not name (RFC 6265 §5.3 step
// 6: it must domain-match the host) is refused, and -c does not write it
// either: the jar written would carry a cookie of evil.test's choosing to
// victim.test the next time it is read with -b. That the jar already holds
// another cookie for the host must not let it through.
func TestCookieJarKeepsNoForeignDomain(t *testing.T) {
	j := NewCookieJar()
	evil, _ := url.Parse("http://www.evil.test/x")
	j.store(evil, []*http.Cookie{{Name: "own", Value: "1"}})
	j.store(evil, []*http.Cookie{{Name: "tossed", Value: "2", Domain: "victim.test"}, {Name: "wide", Value: "3", Domain: "evil.test"}})
	var buf bytes.Buffer
	j.Save(&buf)
	if strings.Contains(buf.String(), "victim.test") || strings.Contains(buf.String(), "tossed") {
		t.Errorf("the jar written holds a cookie for a domain its host may not set:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), ".evil.test\tTRUE\t/\tFALSE\t0\twide\t3\n") || !strings.Contains(buf.String(), "\town\t1\n") {
		t.Errorf("the jar written lacks the host's own cookies:\n%s", buf.String())
	}
}

// What responses set is bounded (RFC 6265 §6.1's limits, curl's answer to
// CVE-2022-32205): at most maxCookieBytes for one cookie, maxDomainCookies
// for one domain, maxJarCookies in all. Otherwise each response (each
// range piece, each redirect hop) could grow the jar, and every later
// request's Cookie field, by up to its whole header section.
func TestCookieJarBounded(t *testing.T) {
	j := NewCookieJar()
	for h := 0; h < 2*maxJarCookies/maxDomainCookies; h++ {
		u, _ := url.Parse(fmt.Sprintf("http://h%d.example/x", h))
		var cs []*http.Cookie
		for i := 0; i < 2*maxDomainCookies; i++ {
			cs = append(cs, &http.Cookie{Name: fmt.Sprintf("c%d", i), Value: "v"})
		}
		cs = append(cs, &http.Cookie{Name: "big", Value: strings.Repeat("v", maxCookieBytes)})
		j.store(u, cs)
		if got := len(j.jar.Cookies(u)); got > maxDomainCookies {
			t.Fatalf("%s gets %d cookies, want at most %d", u, got, maxDomainCookies)
		}
	}
	var buf bytes.Buffer
	j.Save(&buf)
	if n := strings.Count(buf.String(), "\n") - 3; n > maxJarCookies {
		t.Errorf("the jar holds %d cookies, want at most %d", n, maxJarCookies)
	}
	if strings.Contains(buf.String(), "\tbig\t") {
		t.Errorf("a cookie of over %d bytes was kept", maxCookieBytes)
	}
	// A cookie already held may still be replaced.
	u, _ := url.Parse("http://h0.example/x")
	j.store(u, []*http.Cookie{{Name: "c0", Value: "new"}})
	if cs := j.jar.Cookies(u); len(cs) == 0 || !strings.Contains(fmt.Sprint(cs), "c0=new") {
		t.Errorf("replacing a held cookie: the jar sends %v", cs)
	}
}

// A host may not set a cookie for a public suffix (RFC 6265 §5.3 step 5,
// the public suffix list as curl's libpsl and browsers use it):
// www.evil.co.uk setting Domain=co.uk would reach bank.co.uk in the same
// run and through the file -c writes. The suffix's own host gets a host
// cookie.
func TestCookieJarRefusesPublicSuffix(t *testing.T) {
	j := NewCookieJar()
	evil, _ := url.Parse("http://www.evil.co.uk/x")
	bank, _ := url.Parse("http://bank.co.uk/")
	j.store(evil, []*http.Cookie{{Name: "tossed", Value: "1", Domain: "co.uk"}, {Name: "own", Value: "2", Domain: "evil.co.uk"}})
	var buf bytes.Buffer
	j.Save(&buf)
	if strings.Contains(buf.String(), "tossed") {
		t.Errorf("the jar written holds a cookie for the public suffix co.uk:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), ".evil.co.uk\tTRUE\t/\tFALSE\t0\town\t2\n") {
		t.Errorf("the jar written lacks evil.co.uk's own Domain cookie:\n%s", buf.String())
	}
	for _, c := range j.jar.Cookies(bank) {
		t.Errorf("bank.co.uk is sent cookie %s, set by www.evil.co.uk", c.Name)
	}
	suffix, _ := url.Parse("http://github.io/")
	j.store(suffix, []*http.Cookie{{Name: "self", Value: "3", Domain: "github.io"}})
	buf.Reset()
	j.Save(&buf)
	if !strings.Contains(buf.String(), "github.io\tFALSE\t/\tFALSE\t0\tself\t3\n") {
		t.Errorf("github.io's cookie naming itself was not kept as a host cookie:\n%s", buf.String())
	}
}

// A Secure cookie set over plain http is refused (RFC 6265bis §5.7 step
// 8, as curl and browsers do): else a network attacker answering a
// plain-http request could plant one that https requests then carry.
// Loopback is a secure context, as in browsers.
func TestCookieJarRefusesSecureOverHTTP(t *testing.T) {
	j := NewCookieJar()
	plain, _ := url.Parse("http://shop.example/x")
	loop, _ := url.Parse("http://127.0.0.1:8080/x")
	j.store(plain, []*http.Cookie{{Name: "planted", Value: "1", Secure: true}, {Name: "plain", Value: "2"}})
	j.store(loop, []*http.Cookie{{Name: "local", Value: "3", Secure: true}})
	var buf bytes.Buffer
	j.Save(&buf)
	if strings.Contains(buf.String(), "planted") {
		t.Errorf("a Secure cookie set over plain http was kept:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "\tplain\t2\n") || !strings.Contains(buf.String(), "\tlocal\t3\n") {
		t.Errorf("the plain cookie or loopback's Secure one was not kept:\n%s", buf.String())
	}
	secure, _ := url.Parse("https://shop.example/x")
	for _, c := range j.jar.Cookies(secure) {
		if c.Name == "planted" {
			t.Errorf("https://shop.example is sent the cookie planted over http")
		}
	}
}

// The 4096 bytes a cookie may hold count its attributes too (RFC 6265
// §6.1: "the sum of the length of the cookie's name, value, and
// attributes"): a Path is kept, written by -c and held in memory like the
// value, so a cookie with a tiny value and a Path of megabytes would make
// maxJarCookies cookies hold gigabytes.
func TestCookieJarBoundCountsAttributes(t *testing.T) {
	j := NewCookieJar()
	u, _ := url.Parse("http://shop.example/x")
	long := "/" + strings.Repeat("p", maxCookieBytes)
	j.store(u, []*http.Cookie{{Name: "longpath", Value: "1", Path: long}, {Name: "small", Value: "2"}})
	var buf bytes.Buffer
	j.Save(&buf)
	if strings.Contains(buf.String(), "longpath") {
		t.Errorf("a cookie whose Path alone is over %d bytes was kept", maxCookieBytes)
	}
	if !strings.Contains(buf.String(), "\tsmall\t2\n") {
		t.Errorf("the small cookie was not kept:\n%s", buf.String())
	}
}

// A cookie a response deletes (Max-Age=0, an Expires in the past) frees
// its place in the bounds, and deleting one the jar does not hold takes
// none: else a site that rotates cookie names, or clears a list of them,
// is locked out of its own jar for the rest of the run.
func TestCookieJarDeletionFreesBound(t *testing.T) {
	j := NewCookieJar()
	u, _ := url.Parse("http://shop.example/x")
	for round := 0; round < 3; round++ {
		var set, del []*http.Cookie
		for i := 0; i < maxDomainCookies; i++ {
			name := fmt.Sprintf("r%dc%d", round, i)
			set = append(set, &http.Cookie{Name: name, Value: "v"})
			del = append(del, &http.Cookie{Name: name, MaxAge: -1})
		}
		j.store(u, set)
		j.store(u, del)
		j.store(u, []*http.Cookie{{Name: fmt.Sprintf("never%d", round), MaxAge: -1}, {Name: fmt.Sprintf("gone%d", round), Expires: time.Unix(1, 0)}})
	}
	j.store(u, []*http.Cookie{{Name: "session", Value: "fresh"}})
	if cs := j.jar.Cookies(u); !strings.Contains(fmt.Sprint(cs), "session=fresh") {
		t.Errorf("after deleting its cookies the site cannot set one: the jar sends %v", cs)
	}
}

// The file -c writes for an internationalized host is one -b reads back:
// the host in its ASCII (punycode) form, as net/http's jar and curl keep
// it, not in Unicode, which Load refuses.
func TestCookieJarIDNRoundTrip(t *testing.T) {
	j := NewCookieJar()
	u, _ := url.Parse("http://b\u00fccher.example./x")
	j.store(u, []*http.Cookie{{Name: "n", Value: "1"}})
	var buf bytes.Buffer
	if err := j.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\nxn--bcher-kva.example\tFALSE\t/\t") {
		t.Errorf("the jar written does not name the host in punycode:\n%s", buf.String())
	}
	k := NewCookieJar()
	if err := k.Load(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatalf("the jar written does not load: %v\n%s", err, buf.String())
	}
	if cs := k.cookies(u, true); len(cs) != 1 || cs[0].Value != "1" {
		t.Errorf("read back, the jar sends %v to %s", cs, u)
	}
}

// A plain-http response may not overwrite, delete or shadow a Secure
// cookie (RFC 6265bis §5.7 step 16, "leave secure cookies alone", as
// browsers do): else a network attacker answering one plain-http request
// of the run (a downgrade, a control file's http URL) replaces the user's
// -b session with its own, in the requests to https and in the file -c
// writes.
func TestCookieJarLeavesSecureAlone(t *testing.T) {
	j := NewCookieJar()
	if err := j.Load(strings.NewReader("bank.test\tFALSE\t/\tTRUE\t0\tsession\tuser\n")); err != nil {
		t.Fatal(err)
	}
	plain, _ := url.Parse("http://bank.test/x")
	sub, _ := url.Parse("http://www.bank.test/x")
	j.store(plain, []*http.Cookie{{Name: "session", Value: "planted"}, {Name: "other", Value: "1"}})
	j.store(sub, []*http.Cookie{{Name: "session", Value: "tossed", Domain: "bank.test", Path: "/"}})
	j.store(plain, []*http.Cookie{{Name: "session", MaxAge: -1}})
	var buf bytes.Buffer
	j.Save(&buf)
	if !strings.Contains(buf.String(), "bank.test\tFALSE\t/\tTRUE\t0\tsession\tuser\n") || strings.Contains(buf.String(), "planted") || strings.Contains(buf.String(), "tossed") {
		t.Errorf("a plain-http response replaced the user's Secure cookie:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "\tother\t1\n") {
		t.Errorf("a cookie of another name was not kept:\n%s", buf.String())
	}
	secure, _ := url.Parse("https://bank.test/x")
	if cs := j.cookies(secure, true); !strings.Contains(fmt.Sprint(cs), "session=user") || strings.Contains(fmt.Sprint(cs), "session=planted") || strings.Contains(fmt.Sprint(cs), "session=tossed") {
		t.Errorf("https://bank.test is sent %v", cs)
	}
}

// A cookie of -b FILE that its origin deletes (Max-Age=0) is no longer
// sent in the run, as it is no longer written by -c.
func TestCookieJarDeletesUserCookie(t *testing.T) {
	j := NewCookieJar()
	if err := j.Load(strings.NewReader("shop.example\tFALSE\t/\tFALSE\t0\tsession\tuser\n")); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://shop.example/x")
	j.store(u, []*http.Cookie{{Name: "session", Path: "/", MaxAge: -1}})
	if cs := j.cookies(u, true); len(cs) != 0 {
		t.Errorf("after its origin deleted it, the -b cookie is still sent: %v", cs)
	}
	var buf bytes.Buffer
	j.Save(&buf)
	if strings.Contains(buf.String(), "session") {
		t.Errorf("the deleted cookie was written:\n%s", buf.String())
	}
}

// What one request carries is bounded as curl bounds it (150 cookies,
// 8190 bytes): each level of a deep host name may hold its 50 cookies of
// 4 KiB, so a.b.c.d.evil.test was sent a megabyte of them. The user's own
// (-b FILE) go first.
func TestCookieHeaderBounded(t *testing.T) {
	j := NewCookieJar()
	if err := j.Load(strings.NewReader("a.b.c.d.evil.test\tFALSE\t/\tFALSE\t0\tsession\tmine\n")); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://a.b.c.d.evil.test/")
	for _, d := range []string{"evil.test", "d.evil.test", "c.d.evil.test", "b.c.d.evil.test", "a.b.c.d.evil.test"} {
		var cs []*http.Cookie
		for i := 0; i < maxDomainCookies; i++ {
			cs = append(cs, &http.Cookie{Name: fmt.Sprintf("%s%d", d, i), Value: strings.Repeat("v", 4000), Domain: d})
		}
		j.store(u, cs)
	}
	cs := j.cookies(u, true)
	size, mine := 0, false
	for _, c := range cs {
		size += len(c.Name) + len(c.Value) + 2
		mine = mine || c.Name == "session"
	}
	if len(cs) > maxSentCookies || size > maxCookieHeader || !mine {
		t.Errorf("one request carries %d cookies, %d bytes, the user's: %v; want at most %d, %d bytes, the user's among them", len(cs), size, mine, maxSentCookies, maxCookieHeader)
	}
}
