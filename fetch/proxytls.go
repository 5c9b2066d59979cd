package fetch

import (
	"context"
	"crypto/tls"
	"net"
	"net/url"
	"strings"
	"time"
)

// proxyAddr is a proxy URL's HOST:PORT, the host in lower case, the port
// its scheme's default when the URL names none.
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// proxyTLS is the TLS an https proxy named host is spoken to with:
// HTTP/1.1 alone in ALPN, as curl offers a proxy, since what hdig sends
// it (a CONNECT, an absolute-form request) is HTTP/1.1; net/http would
// offer it the origin's protocols, h2 among them, and fail with a proxy
// that picks h2. The roots are the origin's (the system's and --cacert's),
// but -k is not: it is for the origin, as curl's, and a proxy unverified
// would get Proxy-Authorization and all of an http origin's traffic;
// insecure (--proxy-insecure, as curl's) is the proxy's own.
func proxyTLS(origin *tls.Config, host string, insecure bool) *tls.Config {
	return &tls.Config{RootCAs: origin.RootCAs, ServerName: host, NextProtos: []string{"http/1.1"}, InsecureSkipVerify: insecure}
}

// tlsHandshake makes conn a TLS client connection under conf, its
// handshake bounded by timeout; conn is closed when it fails.
func tlsHandshake(ctx context.Context, conn net.Conn, conf *tls.Config, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tc := tls.Client(conn, conf)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}
