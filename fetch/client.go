package fetch

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// Options configure a Client.
type Options struct {
	// FollowRedirects follows 3xx responses (-L).
	FollowRedirects bool
	// Insecure skips TLS verification (-k).
	Insecure bool
	// CACert is a PEM file of extra roots (--cacert).
	CACert string
	// Timeout bounds connecting, waiting for the response header, and any
	// stall while reading the body. 0 means DefaultTimeout.
	Timeout time.Duration
	// Transport replaces the default transport (tests).
	Transport http.RoundTripper
}

// DefaultTimeout is used when Options.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// Client sends hdig's requests.
type Client struct {
	http    *http.Client
	timeout time.Duration
}

// NewClient builds a client. Go's transparent gzip is off: hdig must see the
// bytes the digests cover.
func NewClient(o Options) (*Client, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rt := o.Transport
	if rt == nil {
		tlsConf := &tls.Config{InsecureSkipVerify: o.Insecure}
		if o.CACert != "" {
			pem, err := os.ReadFile(o.CACert)
			if err != nil {
				return nil, fmt.Errorf("read --cacert: %w", err)
			}
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--cacert %s: no PEM certificates found", o.CACert)
			}
			tlsConf.RootCAs = pool
		}
		rt = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSClientConfig:       tlsConf,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			DisableCompression:    true,
			ForceAttemptHTTP2:     true,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
		}
	}
	c := &http.Client{Transport: rt}
	if !o.FollowRedirects {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	} else {
		c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) >= 20 {
				return fmt.Errorf("stopped after %d redirects", len(via))
			}
			return nil
		}
	}
	return &Client{http: c, timeout: timeout}, nil
}

// HTTP returns the underlying client.
func (c *Client) HTTP() *http.Client { return c.http }
