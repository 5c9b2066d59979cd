package cmd

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/spf13/pflag"
)

// transferFlags are curl's connection and timing flags.
type transferFlags struct {
	ConnectTimeout time.Duration
	MaxTime        time.Duration
	MaxRedirs      int
	RetryDelay     time.Duration
	Expect100      time.Duration // 1 s unless given (add)
	LimitRate      string
	Proxy          string
	NoProxy        *string // nil: not given
	ProxyInsecure  bool
	ProxyCACert    string
	Resolve        []string
	IPv4, IPv6     bool
	HTTP11, HTTP2  bool
}

func (t *transferFlags) add(f *pflag.FlagSet) {
	f.Var((*seconds)(&t.ConnectTimeout), "connect-timeout", "give up connecting after `SECONDS` (or a duration: 1.5, 500ms; default: --timeout)")
	f.VarP((*seconds)(&t.MaxTime), "max-time", "m", "give up the whole operation after `SECONDS`, retries included (exit 4; 0: no limit)")
	f.IntVar(&t.MaxRedirs, "max-redirs", 20, "follow at most `N` redirects with -L (-1: no limit; exit 4 beyond)")
	f.Var((*seconds)(&t.RetryDelay), "retry-delay", "wait `SECONDS` before each retry instead of the doubling backoff")
	t.Expect100 = time.Second // curl's
	f.Var((*seconds)(&t.Expect100), "expect100-timeout", "with -H 'Expect: 100-continue', send the content after `SECONDS` without the origin's 100 (0: at once)")
	f.StringVar(&t.LimitRate, "limit-rate", "", "read at most `SPEED` bytes per second from each response (K, M, G suffixes)")
	f.StringVarP(&t.Proxy, "proxy", "x", "", "use the proxy at `URL`: [SCHEME://][USER:PASSWORD@]HOST[:PORT] (default: $http_proxy, $https_proxy, $all_proxy)")
	f.BoolVar(&t.ProxyInsecure, "proxy-insecure", false, "do not verify an https:// proxy's certificate (-k is the origin's)")
	f.StringVar(&t.ProxyCACert, "proxy-cacert", "", "verify an https:// proxy with the CA certificates in `FILE` (PEM), besides the system's (default: --cacert's)")
	f.Var(givenString{&t.NoProxy}, "noproxy", "comma-separated `HOSTS` reached without the proxy (a name covers its subdomains; * alone is all; default: $no_proxy; \"\": none, not even $no_proxy's)")
	f.StringArrayVar(&t.Resolve, "resolve", nil, "`HOST:PORT:ADDR`: connect to ADDR for HOST:PORT instead of resolving HOST (repeatable)")
	f.BoolVarP(&t.IPv4, "ipv4", "4", false, "connect over IPv4 only")
	f.BoolVarP(&t.IPv6, "ipv6", "6", false, "connect over IPv6 only")
	f.BoolVar(&t.HTTP11, "http1.1", false, "use HTTP/1.1 only")
	f.BoolVar(&t.HTTP2, "http2", false, "use HTTP/2 where TLS offers it (the default)")
}

// options checks the flags and fills the client's options.
func (t *transferFlags) options(o *fetch.Options) error {
	switch {
	case t.ConnectTimeout < 0:
		return usageErrorf("--connect-timeout %v: want a positive duration", t.ConnectTimeout)
	case t.MaxTime < 0:
		return usageErrorf("-m %v: want a positive duration (0: no limit)", t.MaxTime)
	case t.RetryDelay < 0:
		return usageErrorf("--retry-delay %v: want a positive duration", t.RetryDelay)
	case t.MaxRedirs < -1:
		return usageErrorf("--max-redirs %d: want -1 (no limit) or more", t.MaxRedirs)
	case t.IPv4 && t.IPv6:
		return usageErrorf("-4 and -6 cannot be used together")
	case t.HTTP11 && t.HTTP2:
		return usageErrorf("--http1.1 and --http2 cannot be used together")
	}
	c := &o.Connection
	c.ConnectTimeout, c.Proxy, c.NoProxy = t.ConnectTimeout, t.Proxy, t.NoProxy
	c.Expect100Timeout, c.ProxyInsecure, c.ProxyCACert = t.Expect100, t.ProxyInsecure, t.ProxyCACert
	if t.Expect100 == 0 {
		c.Expect100Timeout = -1 // at once
	}
	if t.LimitRate != "" {
		n, err := parseSize(t.LimitRate)
		if err != nil || n <= 0 {
			return usageErrorf("--limit-rate %q: want a positive number of bytes per second, e.g. 100K", t.LimitRate)
		}
		c.LimitRate = n
	}
	switch {
	case t.IPv4:
		c.Network = "tcp4"
	case t.IPv6:
		c.Network = "tcp6"
	}
	if t.HTTP11 {
		c.HTTP = "1.1"
	}
	for _, r := range t.Resolve {
		key, addr, err := fetch.ParseResolve(r)
		if err != nil {
			return usageErrorf("--resolve %v", err)
		}
		if c.Resolve == nil {
			c.Resolve = map[string]string{}
		}
		c.Resolve[key] = addr
	}
	redirs := t.MaxRedirs
	o.MaxRedirects = &redirs
	return nil
}

// pins reports whether a --resolve entry pins rawURL's own host and port
// to an address. Malformed entries are left to apply's usage error.
func (t *transferFlags) pins(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	host := strings.ToLower(u.Hostname())
	// A name beyond ASCII is dialled as its IDNA form (xn--…), which
	// --resolve names it by: without an IDNA mapping here, any pin of the
	// URL's port counts (the cache is off for nothing at worst).
	idn := strings.ContainsFunc(host, func(r rune) bool { return r >= 0x80 })
	for _, r := range t.Resolve {
		key, _, err := fetch.ParseResolve(r)
		if err != nil {
			continue
		}
		if key == net.JoinHostPort(host, port) {
			return true
		}
		if _, p, _ := net.SplitHostPort(key); idn && p == port {
			return true
		}
	}
	return false
}

// givenString is a string flag that tells an empty value ("") from none
// (nil).
type givenString struct{ p **string }

func (g givenString) String() string {
	if g.p == nil || *g.p == nil {
		return ""
	}
	return **g.p
}

func (g givenString) Set(v string) error {
	*g.p = &v
	return nil
}

func (g givenString) Type() string { return "string" }

// seconds is a duration flag spelled as curl's: seconds (5, 2.5) or a Go
// duration (500ms).
type seconds time.Duration

func (s *seconds) String() string {
	if *s == 0 {
		return ""
	}
	return time.Duration(*s).String()
}

func (s *seconds) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if !(f >= 0 && f <= 1e9) { // NaN too
			return fmt.Errorf("%q: want 0 or more seconds", v)
		}
		*s = seconds(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q: want seconds (5, 2.5) or a duration (500ms)", v)
	}
	*s = seconds(d)
	return nil
}

func (s *seconds) Type() string { return "seconds" }
