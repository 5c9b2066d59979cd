package fetch

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Connection are curl's connection options (-x, --noproxy, --resolve, -4,
// -6, --connect-timeout, --http1.1, --http2, --limit-rate).
type Connection struct {
	// Proxy is the proxy URL of -x ("": the environment's, environProxy);
	// a proxy without scheme is http://, an http one without port is at
	// port 1080, as curl's.
	Proxy string
	// NoProxy is --noproxy: hosts, comma-separated, reached directly; a
	// name matches itself and its subdomains; "*" alone matches every host.
	// nil: $no_proxy (else $NO_PROXY) is the list, -x or not; an empty
	// one is an empty list, the environment's left aside, as curl's.
	NoProxy *string
	// ProxyCACert is a PEM file of the CAs an https proxy is verified by,
	// besides the system's (--proxy-cacert; without it, --cacert's).
	ProxyCACert string
	// ProxyInsecure skips the verification of an https proxy's certificate
	// (--proxy-insecure; -k is the origin's).
	ProxyInsecure bool
	// Resolve pins HOST:PORT to an address (--resolve HOST:PORT:ADDR).
	Resolve map[string]string
	// Network is "tcp", "tcp4" (-4) or "tcp6" (-6).
	Network string
	// ConnectTimeout bounds connecting (0: the client's Timeout).
	ConnectTimeout time.Duration
	// HTTP is "1.1" (--http1.1: never HTTP/2) or "" and "2" (HTTP/2 when
	// TLS offers it).
	HTTP string
	// LimitRate caps the bytes per second read off each response body (0:
	// no cap).
	LimitRate int64
	// Expect100Timeout is how long a request carrying Expect: 100-continue
	// waits for the origin's 100 before it sends its content anyway (0: 1 s,
	// curl's --expect100-timeout default; negative: no wait, curl's 0).
	Expect100Timeout time.Duration
}

// ParseResolve parses one --resolve HOST:PORT:ADDR into its key HOST:PORT
// and ADDR (an IPv6 ADDR may be bracketed).
func ParseResolve(s string) (string, string, error) {
	host, rest, ok := strings.Cut(s, ":")
	port, addr, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || host == "" || port == "" || addr == "" {
		return "", "", fmt.Errorf("%q: want HOST:PORT:ADDR", s)
	}
	addr = strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	if net.ParseIP(addr) == nil {
		return "", "", fmt.Errorf("%q: ADDR %q is not an IP address", s, addr)
	}
	return net.JoinHostPort(strings.ToLower(host), port), addr, nil
}

// proxyFunc is the Transport's Proxy for c: none for a host of the
// --noproxy list (else the environment's, with -x too, as curl), then -x's
// proxy, else the environment's (environProxy) but for a loopback host.
func (c Connection) proxyFunc() (func(*http.Request) (*url.URL, error), error) {
	var fixed *url.URL
	if c.Proxy != "" {
		u, err := parseProxy(c.Proxy, "proxy")
		if err != nil {
			return nil, err
		}
		fixed = u
	}
	list := environNoProxy()
	if c.NoProxy != nil {
		list = *c.NoProxy
	}
	return func(r *http.Request) (*url.URL, error) {
		host := r.URL.Hostname()
		switch {
		case noProxy(list, host):
			return nil, nil
		case fixed != nil:
			return fixed, nil
		case loopbackHost(host):
			return nil, nil
		}
		return environProxy(r.URL.Scheme)
	}, nil
}

// noProxy says whether host is in list, curl's --noproxy: a list that is
// exactly "*" is every host (a "*" among others is no entry, as in curl
// 7.88; Go's no_proxy takes it anywhere); a name matches itself and its
// subdomains (a leading dot is allowed); an address host matches by
// address, never as a name: an entry that is the same address, or a CIDR
// block holding it (curl 7.86).
func noProxy(list, host string) bool {
	if list == "*" {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	ip := net.ParseIP(host)
	for _, e := range strings.Split(list, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		e = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(e, "["), "."), "]")
		switch {
		case e == "", e == "*":
		case ip != nil:
			if addressCovers(e, ip) {
				return true
			}
		case e == host, strings.HasSuffix(host, "."+e):
			return true
		}
	}
	return false
}

// addressCovers says whether the --noproxy entry e, an address or a CIDR
// block, covers ip.
func addressCovers(e string, ip net.IP) bool {
	if _, block, err := net.ParseCIDR(e); err == nil {
		return block.Contains(ip)
	}
	a := net.ParseIP(e)
	return a != nil && a.Equal(ip)
}

// dialer is the Transport's DialContext for c. proxyOf says whether a
// HOST:PORT is a proxy's, and the TLS to speak to it (nil: none; a nil
// proxyOf: no proxy); dialGuard applies to the others.
func (c Connection) dialer(timeout time.Duration, proxyOf func(string) (bool, *tls.Config)) func(context.Context, string, string) (net.Conn, error) {
	handshake := timeout
	if c.ConnectTimeout > 0 {
		timeout = c.ConnectTimeout
	}
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if c.Network != "" {
			network = c.Network
		}
		dd := d
		var proxyTLS *tls.Config
		if host, port, err := net.SplitHostPort(addr); err == nil {
			proxied := false
			if proxyOf != nil {
				proxied, proxyTLS = proxyOf(addr)
			}
			if guard := dialGuard(ctx, host, proxied); guard != nil {
				dd = &net.Dialer{Timeout: d.Timeout, KeepAlive: d.KeepAlive, Control: guard}
			}
			if pinned, ok := c.Resolve[net.JoinHostPort(strings.ToLower(host), port)]; ok {
				addr = net.JoinHostPort(pinned, port)
			}
		}
		conn, err := dd.DialContext(ctx, network, addr)
		if err != nil || proxyTLS == nil {
			return conn, err
		}
		return tlsHandshake(ctx, conn, proxyTLS, handshake)
	}
}

// transport builds the default transport of a client.
func (c Connection) transport(tlsConf *tls.Config, timeout time.Duration) (*http.Transport, error) {
	proxy, err := c.proxyFunc()
	if err != nil {
		return nil, err
	}
	roots, err := c.proxyRoots(tlsConf)
	if err != nil {
		return nil, err
	}
	// The proxies chosen, by HOST:PORT, each with whether it is an https
	// one: dialGuard leaves their connections alone (the user chose them,
	// and they resolve the target), and the dialer speaks TLS to an https
	// one itself (proxyTLS), net/http seeing an http proxy on it.
	var proxies sync.Map
	expect := c.Expect100Timeout
	switch {
	case expect == 0:
		expect = time.Second
	case expect < 0:
		expect = 0 // net/http's: at once
	}
	t := &http.Transport{
		Proxy: func(r *http.Request) (*url.URL, error) {
			u, err := proxy(r)
			if u == nil {
				return u, err
			}
			addr := proxyAddr(u)
			proxies.Store(addr, u.Scheme == "https")
			if u.Scheme == "https" {
				plain := *u
				plain.Scheme, plain.Host = "http", addr
				return &plain, err
			}
			return u, err
		},
		DialContext: c.dialer(timeout, func(addr string) (bool, *tls.Config) {
			host, port, _ := net.SplitHostPort(addr)
			secure, ok := proxies.Load(net.JoinHostPort(strings.ToLower(host), port))
			if ok && secure.(bool) {
				return true, proxyTLS(roots, host, c.ProxyInsecure)
			}
			return ok, nil
		}),
		OnProxyConnectResponse: refusedTunnel,
		TLSClientConfig:        tlsConf,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		DisableCompression:     true,
		ForceAttemptHTTP2:      true,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  expect,
	}
	switch c.HTTP {
	case "", "2":
	case "1.1":
		t.ForceAttemptHTTP2 = false
		t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	default:
		return nil, fmt.Errorf("HTTP version %q: want 1.1 or 2", c.HTTP)
	}
	return t, nil
}

// refusedTunnel is the error of a proxy that answered CONNECT with another
// status than 200 (net/http's test): told as the proxy's answer, with its
// address (never its password) and the status, not as the bare reason
// phrase ("Bad Gateway") net/http makes of it, which reads as the origin's.
// The phrase is the standard one: the proxy's own is not printed.
func refusedTunnel(_ context.Context, proxy *url.URL, _ *http.Request, resp *http.Response) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	return fmt.Errorf("proxy %s answered CONNECT with %d %s", proxy.Host, resp.StatusCode, http.StatusText(resp.StatusCode))
}
