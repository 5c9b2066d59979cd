package fetch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

func TestNoProxy(t *testing.T) {
	for _, c := range []struct {
		list, host string
		want       bool
	}{
		{"*", "anything.example", true},
		// curl 7.88 honours "*" only as the whole list, exactly.
		{"a.example,*", "anything.example", false},
		{"*,a.example", "anything.example", false},
		{" * ", "anything.example", false},
		{"*.example", "a.example", false},
		{"example.com", "example.com", true},
		{"example.com", "www.example.com", true},
		{".example.com", "www.example.com", true},
		{"example.com", "badexample.com", false},
		{"a.test, 127.0.0.1", "127.0.0.1", true},
		{"[::1]", "::1", true},
		{"", "x", false},
	} {
		if got := noProxy(c.list, c.host); got != c.want {
			t.Errorf("noProxy(%q, %q) = %v, want %v", c.list, c.host, got, c.want)
		}
	}
}

// TestNoProxyAddresses: an address in --noproxy matches that address (or,
// as curl's since 7.86, a CIDR block the host's address is in), never as
// a name's suffix: "0.0.1" is not 127.0.0.1's parent domain.
func TestNoProxyAddresses(t *testing.T) {
	for _, c := range []struct {
		list, host string
		want       bool
	}{
		{"0.0.1", "127.0.0.1", false},
		{"1", "127.0.0.1", false},
		{"0.1", "10.0.0.1", false},
		{"127.0.0.1", "127.0.0.1", true},
		{"127.0.0.0/8", "127.0.0.1", true},
		{"10.0.0.0/8", "127.0.0.1", false},
		{"[::1]", "::1", true},
		{"0:0::1", "::1", true},
		{"::/0", "::1", true},
		{"1", "::1", false},
		{"127.0.0.1", "127.0.0.1.example", false},
	} {
		if got := noProxy(c.list, c.host); got != c.want {
			t.Errorf("noProxy(%q, %q) = %v, want %v", c.list, c.host, got, c.want)
		}
	}
}

func TestParseResolve(t *testing.T) {
	key, addr, err := ParseResolve("Example.COM:443:127.0.0.1")
	if err != nil || key != "example.com:443" || addr != "127.0.0.1" {
		t.Errorf("got %q %q %v", key, addr, err)
	}
	if _, addr, err := ParseResolve("h:80:[::1]"); err != nil || addr != "::1" {
		t.Errorf("IPv6: %q %v", addr, err)
	}
	for _, bad := range []string{"h:80", "h:80:notanip", ":80:127.0.0.1", "h::127.0.0.1"} {
		if _, _, err := ParseResolve(bad); err == nil {
			t.Errorf("ParseResolve(%q) accepted", bad)
		}
	}
}

// TestRateLimitedPaces counts the waits a limited body asks for: reading
// N bytes at R bytes per second waits N/R seconds in all, in reads of at
// most R bytes.
func TestRateLimitedPaces(t *testing.T) {
	now := time.Unix(0, 0)
	var slept time.Duration
	biggest := 0
	l := limitRate(io.NopCloser(strings.NewReader(strings.Repeat("x", 10000))), 1000)
	l.start, l.now = now, func() time.Time { return now.Add(slept) }
	l.sleep = func(d time.Duration) { slept += d }
	buf := make([]byte, 4096)
	total := 0
	for {
		n, err := l.Read(buf)
		total += n
		biggest = max(biggest, n)
		if err != nil {
			break
		}
	}
	if total != 10000 || biggest > 1000 {
		t.Fatalf("read %d bytes, largest read %d; want 10000 in reads of at most 1000", total, biggest)
	}
	if slept != 10*time.Second {
		t.Errorf("waited %v in all, want 10s", slept)
	}
}

func TestRetryDelayReplacesBackoff(t *testing.T) {
	r := &Request{}
	if r.backoff(3) != backoff(3) {
		t.Errorf("without RetryDelay: %v, want %v", r.backoff(3), backoff(3))
	}
	r.RetryDelay = 1500 * time.Millisecond
	for a := 0; a < 5; a++ {
		if r.backoff(a) != r.RetryDelay {
			t.Errorf("attempt %d: %v, want %v", a, r.backoff(a), r.RetryDelay)
		}
	}
}

// TestMaxRedirects: the limit counts redirects followed; one more fails
// as a network error; the hook sees each hop.
func TestMaxRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmtSscan(r.URL.Path, &n); err == nil && n > 0 {
			http.Redirect(w, r, "/"+itoa(n-1), http.StatusFound)
			return
		}
		w.Write([]byte("done"))
	}))
	defer srv.Close()
	for _, c := range []struct{ limit, hops int }{{2, 2}, {1, 2}, {0, 1}, {-1, 3}} {
		limit := c.limit
		cl, _ := NewClient(Options{FollowRedirects: true, MaxRedirects: &limit})
		seen := 0
		ctx := WithRedirectHook(context.Background(), func(*http.Response, int) { seen++ })
		req := &Request{URL: srv.URL + "/" + itoa(c.hops), Header: http.Header{}, Policy: verify.DefaultPolicy()}
		_, err := cl.Get(ctx, req, DiscardSink{})
		ok := limit < 0 || c.hops <= limit
		if (err == nil) != ok {
			t.Errorf("limit %d, %d hops: err %v", limit, c.hops, err)
		}
		if ok && seen != c.hops {
			t.Errorf("limit %d: hook saw %d hops, want %d", limit, seen, c.hops)
		}
	}
}

// TestProxyAndNoProxy: -x sends the request to the proxy (absolute
// target); --noproxy and --resolve reach the origin directly.
func TestProxyAndNoProxy(t *testing.T) {
	var proxied []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied = append(proxied, r.RequestURI+" "+r.Header.Get("Proxy-Authorization"))
		w.Write([]byte("via proxy"))
	}))
	defer proxy.Close()
	direct := 0
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		direct++
		w.Write([]byte("direct"))
	}))
	defer origin.Close()
	pu, _ := url.Parse(proxy.URL)
	ou, _ := url.Parse(origin.URL)
	target := "http://origin.test:" + ou.Port() + "/x"
	conn := Connection{Proxy: "http://u:p@" + pu.Host, Resolve: map[string]string{"origin.test:" + ou.Port(): "127.0.0.1"}}
	get := func(conn Connection) {
		t.Helper()
		c, err := NewClient(Options{Connection: conn})
		if err != nil {
			t.Fatal(err)
		}
		req := &Request{URL: target, Header: http.Header{}, Policy: verify.DefaultPolicy()}
		if _, err := c.Get(context.Background(), req, DiscardSink{}); err != nil {
			t.Fatal(err)
		}
	}
	get(conn)
	if len(proxied) != 1 || proxied[0] != target+" Basic dTpw" || direct != 0 {
		t.Fatalf("-x: proxy saw %q, origin %d requests", proxied, direct)
	}
	conn.NoProxy = hosts("other.test,.origin.test")
	get(conn)
	if len(proxied) != 1 || direct != 1 {
		t.Errorf("--noproxy: proxy saw %q, origin %d requests", proxied, direct)
	}
}

// hosts is a --noproxy list given.
func hosts(list string) *string { return &list }

func fmtSscan(path string, n *int) (int, error) { return fmt.Sscan(strings.TrimPrefix(path, "/"), n) }
func itoa(n int) string                         { return strconv.Itoa(n) }

// TestProxyHonoursNoProxyEnv: with -x and no --noproxy, the hosts of
// $no_proxy (else $NO_PROXY) are reached directly, as curl does; --noproxy
// replaces them.
func TestProxyHonoursNoProxyEnv(t *testing.T) {
	for _, c := range []struct {
		env, val string
		flag     *string
		direct   bool
	}{
		{"no_proxy", "other.test,origin.test", nil, true},
		{"NO_PROXY", "origin.test", nil, true},
		{"no_proxy", "other.test", nil, false},
		{"no_proxy", "origin.test", hosts("other.test"), false},
		{"no_proxy", "origin.test", hosts(""), false},
	} {
		t.Run(fmt.Sprintf("%s=%s,--noproxy=%v", c.env, c.val, c.flag != nil), func(t *testing.T) {
			t.Setenv("no_proxy", "")
			t.Setenv("NO_PROXY", "")
			t.Setenv(c.env, c.val)
			proxied, direct := 0, 0
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { proxied++ }))
			defer proxy.Close()
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { direct++ }))
			defer origin.Close()
			ou, _ := url.Parse(origin.URL)
			conn := Connection{Proxy: proxy.URL, NoProxy: c.flag, Resolve: map[string]string{"origin.test:" + ou.Port(): "127.0.0.1"}}
			cl, err := NewClient(Options{Connection: conn})
			if err != nil {
				t.Fatal(err)
			}
			req := &Request{URL: "http://origin.test:" + ou.Port() + "/x", Header: http.Header{}, Policy: verify.DefaultPolicy()}
			if _, err := cl.Get(context.Background(), req, DiscardSink{}); err != nil {
				t.Fatal(err)
			}
			if got := direct == 1 && proxied == 0; got != c.direct {
				t.Errorf("origin saw %d requests, proxy %d; want direct %v", direct, proxied, c.direct)
			}
		})
	}
}

// TestProxyDefaultPort: -x without a port is port 1080 for an http proxy,
// as curl's ("assumed to be 1080"), 443 for an https one.
func TestProxyDefaultPort(t *testing.T) {
	for proxy, want := range map[string]string{
		"proxy.test":          "proxy.test:1080",
		"http://u:p@[::1]":    "[::1]:1080",
		"https://proxy.test":  "proxy.test:443",
		"proxy.test:3128":     "proxy.test:3128",
		"socks5://proxy.test": "proxy.test:1080",
	} {
		f, err := Connection{Proxy: proxy}.proxyFunc()
		if err != nil {
			t.Fatal(err)
		}
		u, err := f(&http.Request{URL: &url.URL{Scheme: "http", Host: "origin.test"}})
		if err != nil || u == nil || proxyAddr(u) != want {
			t.Errorf("-x %s: proxy %v (err %v), want %s", proxy, u, err, want)
		}
	}
}

// TestProxyURLRedacted: a -x URL hdig cannot use is a usage error that
// names it with its password hidden, as every URL hdig prints.
func TestProxyURLRedacted(t *testing.T) {
	for _, proxy := range []string{"http://u:s3cret@host:bad", "http://u:s3cret@", "u:s3cret@[::1"} {
		_, err := Connection{Proxy: proxy}.proxyFunc()
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("-x %s: err %v, want one without the password", proxy, err)
		}
	}
}

// TestProxySchemeRefused: -x with a scheme net/http cannot speak (ftp,
// socks4) is a usage error, not requests sent to that host as if it were
// the origin (or an http proxy).
func TestProxySchemeRefused(t *testing.T) {
	for proxy, ok := range map[string]bool{
		"ftp://u:p@host:21": false, "socks4://host:1080": false, "socks4a://host": false,
		"http://host": true, "HTTPS://host": true, "socks5://host": true, "socks5h://host": true, "host:3128": true,
	} {
		if _, err := (Connection{Proxy: proxy}).proxyFunc(); (err == nil) != ok {
			t.Errorf("-x %s: err %v, want accepted %v", proxy, err, ok)
		}
	}
}
