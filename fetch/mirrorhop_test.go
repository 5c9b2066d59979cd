package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// TestLinkMirrorRedirectStaysOut: a public origin's Link mirror that
// redirects (-L) to a loopback address is not followed there: the rule
// its URL passed holds for every hop. The origin and the mirror are
// reached by names pinned to 127.0.0.1 (--resolve), so they count as
// public; the inner address is a literal loopback one.
func TestLinkMirrorRedirectStaysOut(t *testing.T) {
	data := genData(pieceTestSize, 1)
	var inner atomic.Int64
	in := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.Add(1)
		http.NotFound(w, r)
	}))
	defer in.Close()
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, in.URL+r.URL.Path, http.StatusFound)
	}))
	defer mirror.Close()
	mu, _ := url.Parse(mirror.URL)
	origin := newSite(t, siteDir(t, data, ""), nil, true, server.WithDuplicates("http://m.example:"+mu.Port()+"/"))
	ou, _ := url.Parse(origin.ts.URL)
	c, err := NewClient(Options{Timeout: testStall, FollowRedirects: true, Connection: Connection{Resolve: map[string]string{
		"o.example:" + ou.Port(): "127.0.0.1", "m.example:" + mu.Port(): "127.0.0.1"}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f")
	opts := pieceOpts
	opts.LinkMirrors = 4
	res, err := c.Download(context.Background(), mirrorRequest("http://o.example:"+ou.Port()+"/f"), path, opts)
	if err != nil {
		t.Fatalf("Download: %v", err)
	}
	assertFileBytes(t, path, data)
	if !res.Verdict.Verified(verify.ReprDigest) {
		t.Errorf("verdict %v", res.Verdict.Checks)
	}
	if n := inner.Load(); n != 0 {
		t.Errorf("the loopback address behind the mirror's redirect got %d requests, want 0", n)
	}
	if len(res.Mirrors) != 1 || res.Mirrors[0].State == MirrorUsed {
		t.Errorf("mirrors %+v, want the redirecting one not used", res.Mirrors)
	}
}

// TestLinkMirrorDialStaysOut: a public origin's Link mirror whose name
// resolves to a loopback address (here by --resolve; a DNS name pointing
// inward does the same) is refused as it is dialled: its URL passes the
// name check, the address it reaches does not. It is left unused and gets
// no request. The origin's own name is the user's: it is dialled wherever
// it resolves.
func TestLinkMirrorDialStaysOut(t *testing.T) {
	data := genData(pieceTestSize, 1)
	mirror := newSite(t, siteDir(t, data, ""), nil, false)
	mu, _ := url.Parse(mirror.ts.URL)
	origin := newSite(t, siteDir(t, data, ""), nil, true, server.WithDuplicates("http://m.example:"+mu.Port()+"/"))
	ou, _ := url.Parse(origin.ts.URL)
	conn := Connection{Resolve: map[string]string{"o.example:" + ou.Port(): "127.0.0.1", "m.example:" + mu.Port(): "127.0.0.1"}}
	c, err := NewClient(Options{Timeout: testStall, Connection: conn})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f")
	opts := pieceOpts
	opts.LinkMirrors = 4
	res, err := c.Download(context.Background(), mirrorRequest("http://o.example:"+ou.Port()+"/f"), path, opts)
	if err != nil {
		t.Fatalf("Download: %v", err)
	}
	assertFileBytes(t, path, data)
	if !res.Verdict.Verified(verify.ReprDigest) {
		t.Errorf("verdict %v", res.Verdict.Checks)
	}
	if n, _, h := mirror.counts(); n != 0 || len(h) != 0 {
		t.Errorf("the mirror resolving to loopback got %d requests (%d ranges), want 0", len(h), n)
	}
	if len(res.Mirrors) != 1 || res.Mirrors[0].State == MirrorUsed || !strings.Contains(res.Mirrors[0].Reason, "loopback or private") {
		t.Errorf("mirrors %+v, want the inward one not used, the reason said", res.Mirrors)
	}

	// The rule is the dialler's: the origin's own host is dialled, another
	// host resolving inward is not, for a Link mirror's requests only.
	dial := conn.dialer(testStall, nil)
	ctx := context.WithValue(context.Background(), hopRuleKey{}, "http://o.example:"+ou.Port()+"/f")
	if cn, err := dial(ctx, "tcp", "o.example:"+ou.Port()); err != nil {
		t.Errorf("dialling the origin's own host: %v", err)
	} else {
		cn.Close()
	}
	if cn, err := dial(ctx, "tcp", "m.example:"+mu.Port()); err == nil {
		cn.Close()
		t.Error("dialling another host resolving to loopback for a public origin's Link: no error")
	}
	if cn, err := dial(context.Background(), "tcp", "m.example:"+mu.Port()); err != nil {
		t.Errorf("dialling it outside a Link mirror's request: %v", err)
	} else {
		cn.Close()
	}
}

// TestLinkMirrorThroughProxy: through a proxy (here on loopback, as many
// are), a public origin's Link mirror is asked: the address dialled is the
// proxy's, which the user chose, and the proxy resolves the mirror's name.
func TestLinkMirrorThroughProxy(t *testing.T) {
	data := genData(pieceTestSize, 1)
	mirror := newSite(t, siteDir(t, data, ""), nil, false)
	mu, _ := url.Parse(mirror.ts.URL)
	origin := newSite(t, siteDir(t, data, ""), nil, true, server.WithDuplicates("http://m.example:"+mu.Port()+"/"))
	ou, _ := url.Parse(origin.ts.URL)
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		u := *r.In.URL
		u.Host = "127.0.0.1:" + u.Port()
		r.Out.URL = &u
		r.Out.Host = r.In.Host
	}})
	defer proxy.Close()
	c, err := NewClient(Options{Timeout: testStall, Connection: Connection{Proxy: proxy.URL}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f")
	opts := pieceOpts
	opts.LinkMirrors = 4
	res, err := c.Download(context.Background(), mirrorRequest("http://o.example:"+ou.Port()+"/f"), path, opts)
	if err != nil {
		t.Fatalf("Download: %v", err)
	}
	assertFileBytes(t, path, data)
	if n, _, _ := mirror.counts(); n == 0 || len(res.Mirrors) != 1 || res.Mirrors[0].State != MirrorUsed {
		t.Errorf("mirror asked for %d ranges, reports %+v; want it used through the proxy", n, res.Mirrors)
	}
}

// TestLinkMirrorProxyHostOtherPort: the proxy's exemption from the dial
// rule is its HOST:PORT. A Link mirror at another port of the proxy's host
// name, reached directly (--noproxy) and resolving to loopback, is refused
// as it is dialled; the proxy itself is dialled.
func TestLinkMirrorProxyHostOtherPort(t *testing.T) {
	lp := httptest.NewServer(http.NotFoundHandler()) // the proxy's port
	defer lp.Close()
	other := httptest.NewServer(http.NotFoundHandler()) // another port of its host
	defer other.Close()
	pu, _ := url.Parse(lp.URL)
	su, _ := url.Parse(other.URL)
	conn := Connection{Proxy: "http://p.example:" + pu.Port(), NoProxy: hosts("p.example"),
		Resolve: map[string]string{"p.example:" + pu.Port(): "127.0.0.1", "p.example:" + su.Port(): "127.0.0.1"}}
	tr, err := conn.transport(nil, testStall)
	if err != nil {
		t.Fatal(err)
	}
	// The origin's request chooses the proxy (as the Transport asks).
	req, _ := http.NewRequest(http.MethodGet, "http://o.example/f", nil)
	if u, err := tr.Proxy(req); err != nil || u == nil {
		t.Fatalf("proxy for the origin: %v %v", u, err)
	}
	ctx := context.WithValue(context.Background(), hopRuleKey{}, "http://o.example/f")
	if cn, err := tr.DialContext(ctx, "tcp", "p.example:"+pu.Port()); err != nil {
		t.Errorf("dialling the proxy: %v", err)
	} else {
		cn.Close()
	}
	if cn, err := tr.DialContext(ctx, "tcp", "p.example:"+su.Port()); err == nil {
		cn.Close()
		t.Error("a Link mirror at another port of the proxy's host, resolving to loopback, was dialled")
	}
}
