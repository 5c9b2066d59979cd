package fetch

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/hdig/hdig/httpfield"
)

// ProxyFromEnvironment is the proxy of r without -x or --noproxy: the
// environment's (environProxy), hdig get's rule for any client of hdig's
// (net/http's http.ProxyFromEnvironment reads other variables).
func ProxyFromEnvironment(r *http.Request) (*url.URL, error) {
	proxy, _ := Connection{}.proxyFunc() // fails only on a bad -x
	return proxy(r)
}

// environProxy is the proxy the environment names for a URL of scheme,
// read as curl 7.88 reads it: $http_proxy for http (never $HTTP_PROXY,
// which a CGI program's request sets with a Proxy field: httpoxy),
// $https_proxy or $HTTPS_PROXY for https, else $all_proxy or $ALL_PROXY;
// the lower case first, an empty one unset. nil: none.
func environProxy(scheme string) (*url.URL, error) {
	names := []string{"all_proxy", "ALL_PROXY"}
	switch strings.ToLower(scheme) {
	case "http":
		names = append([]string{"http_proxy"}, names...)
	case "https":
		names = append([]string{"https_proxy", "HTTPS_PROXY"}, names...)
	}
	for _, name := range names {
		if raw := os.Getenv(name); raw != "" {
			return parseProxy(raw, "$"+name)
		}
	}
	return nil, nil
}

// environNoProxy is the environment's list of hosts reached directly:
// $no_proxy, else $NO_PROXY.
func environNoProxy() string {
	return cmp.Or(os.Getenv("no_proxy"), os.Getenv("NO_PROXY"))
}

// parseProxy parses a proxy URL as curl does: without scheme it is
// http://, an http one without port is at port 1080. what names it in
// errors (-x's "proxy", or the variable), which never carry its password.
func parseProxy(raw, what string) (*url.URL, error) {
	full := raw
	if !strings.Contains(full, "://") {
		full = "http://" + full
	}
	u, err := url.Parse(full)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%s %q: want [SCHEME://][USER:PASSWORD@]HOST[:PORT]", what, httpfield.Redact(raw))
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("%s %q: scheme %s not supported (http, https, socks5, socks5h)", what, httpfield.Redact(raw), u.Scheme)
	}
	if u.Port() == "" && u.Scheme == "http" {
		u.Host = net.JoinHostPort(u.Hostname(), "1080") // curl's default
	}
	return u, nil
}

// loopbackHost says whether host is localhost (or a subdomain of it) or
// a loopback address in any spelling (hostAddr). The environment's proxy
// is not used for it, as Go's http.ProxyFromEnvironment (curl uses it):
// a proxy would reach its own loopback, not the user's, and the user's
// local traffic would go out to the proxy unasked. -x is asked: it is
// used for loopback too, as curl's.
func loopbackHost(host string) bool {
	h, a, ok := hostAddr(host)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	return ok && a.Unmap().IsLoopback()
}
