package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
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
// that picks h2. roots are proxyRoots; -k is not heeded: it is for the
// origin, as curl's, and a proxy unverified would get Proxy-Authorization
// and all of an http origin's traffic; insecure (--proxy-insecure, as
// curl's) is the proxy's own.
func proxyTLS(roots *x509.CertPool, host string, insecure bool) *tls.Config {
	return &tls.Config{RootCAs: roots, ServerName: host, NextProtos: []string{"http/1.1"}, InsecureSkipVerify: insecure}
}

// proxyRoots are the roots an https proxy is verified by: the system's
// and --proxy-cacert's, as curl's, else the origin's (the system's and
// --cacert's; origin may be nil).
func (c Connection) proxyRoots(origin *tls.Config) (*x509.CertPool, error) {
	if c.ProxyCACert != "" {
		return certPool(c.ProxyCACert, "--proxy-cacert")
	}
	if origin == nil {
		return nil, nil
	}
	return origin.RootCAs, nil
}

// certPool is the system's roots and the PEM certificates of file, which
// flag names in errors.
func certPool(file, flag string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", flag, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s %s: no PEM certificates found", flag, file)
	}
	return pool, nil
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
