package fetch

import (
	"context"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// tlsProxy is an https:// forward proxy (CONNECT tunnels, absolute-form
// requests forwarded) counting the requests it served; h2 lets it offer
// HTTP/2 in ALPN, as Go's servers and others do.
func tlsProxy(t *testing.T, h2 bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	p := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.Method == http.MethodConnect {
			up, err := net.Dial("tcp", r.Host)
			if err != nil {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Write([]byte("HTTP/1.1 200 OK\r\n\r\n"))
			go io.Copy(up, c)
			io.Copy(c, up)
			c.Close()
			up.Close()
			return
		}
		out := r.Clone(r.Context())
		out.RequestURI = ""
		resp, err := (&http.Transport{}).RoundTrip(out)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	p.EnableHTTP2 = h2
	p.StartTLS()
	t.Cleanup(p.Close)
	return p, &n
}

// httpsProxyCase is a GET of target through the https proxy p under
// opts: the requests p served for it, and its error.
func httpsProxyCase(t *testing.T, p *httptest.Server, served *atomic.Int32, opts Options, target string) (int32, error) {
	t.Helper()
	opts.Connection.Proxy = "https://u:p@" + strings.TrimPrefix(p.URL, "https://")
	cl, err := NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	before := served.Load()
	req := &Request{URL: target + "/x", Header: http.Header{}, Policy: verify.DefaultPolicy()}
	_, err = cl.Get(context.Background(), req, DiscardSink{})
	return served.Load() - before, err
}

// httpsProxyTargets are an http and an https origin, and a PEM file of
// httptest's one certificate (theirs and the proxy's).
func httpsProxyTargets(t *testing.T) (string, string, string) {
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	origin := httptest.NewServer(hello)
	t.Cleanup(origin.Close)
	secure := httptest.NewTLSServer(hello)
	t.Cleanup(secure.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secure.Certificate().Raw}), 0o600)
	return origin.URL, secure.URL, ca
}

// TestHTTPSProxyHTTP1: an https:// proxy is spoken to in HTTP/1.1 (a
// CONNECT or an absolute-form request), ALPN offering it alone, so that a
// proxy that also speaks HTTP/2 (Go's servers, others) does not pick h2.
func TestHTTPSProxyHTTP1(t *testing.T) {
	t.Setenv("no_proxy", "") // the user's environment must not send the loopback origin around the proxy
	t.Setenv("NO_PROXY", "")
	plain, secure, ca := httpsProxyTargets(t)
	for _, h2 := range []bool{false, true} {
		p, served := tlsProxy(t, h2)
		for _, target := range []string{plain, secure} {
			if n, err := httpsProxyCase(t, p, served, Options{CACert: ca}, target); err != nil || n != 1 {
				t.Errorf("proxy offering h2 %v, %s: err %v, proxy served %d", h2, target, err, n)
			}
		}
	}
}

// TestHTTPSProxyNotInsecure: -k is for the origin; an https proxy is still
// verified (by the system's roots and --cacert's), as curl does, which has
// --proxy-insecure for it: a proxy's certificate no root vouches for is
// refused before anything, Proxy-Authorization first, is sent to it.
func TestHTTPSProxyNotInsecure(t *testing.T) {
	t.Setenv("no_proxy", "") // the user's environment must not send the loopback origin around the proxy
	t.Setenv("NO_PROXY", "")
	plain, secure, _ := httpsProxyTargets(t)
	p, served := tlsProxy(t, false)
	for _, target := range []string{plain, secure} {
		n, err := httpsProxyCase(t, p, served, Options{Insecure: true}, target)
		if err == nil || !strings.Contains(err.Error(), "certificate") || n != 0 {
			t.Errorf("-k, %s: the proxy's certificate was not verified: err %v, proxy served %d", target, err, n)
		}
	}
}

// TestHTTPSProxyInsecure: --proxy-insecure (ProxyInsecure) skips the
// verification of an https proxy's certificate, as curl's, and only the
// proxy's: the https origin behind it is still verified unless -k.
func TestHTTPSProxyInsecure(t *testing.T) {
	t.Setenv("no_proxy", "") // the user's environment must not send the loopback origin around the proxy
	t.Setenv("NO_PROXY", "")
	plain, secure, _ := httpsProxyTargets(t)
	p, served := tlsProxy(t, false)
	insecure := Options{Connection: Connection{ProxyInsecure: true}}
	if n, err := httpsProxyCase(t, p, served, insecure, plain); err != nil || n != 1 {
		t.Errorf("--proxy-insecure, %s: err %v, proxy served %d", plain, err, n)
	}
	if _, err := httpsProxyCase(t, p, served, insecure, secure); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("--proxy-insecure, %s: the origin's certificate was not verified: err %v", secure, err)
	}
	insecure.Insecure = true
	if n, err := httpsProxyCase(t, p, served, insecure, secure); err != nil || n != 1 {
		t.Errorf("--proxy-insecure -k, %s: err %v, proxy served %d", secure, err, n)
	}
}

// TestHTTPSProxyCACert: --proxy-cacert (ProxyCACert) is the CA an https
// proxy's certificate is verified with, as curl's, and only the proxy's:
// the https origin is not trusted by it.
func TestHTTPSProxyCACert(t *testing.T) {
	t.Setenv("no_proxy", "") // the user's environment must not send the loopback origin around the proxy
	t.Setenv("NO_PROXY", "")
	plain, secure, ca := httpsProxyTargets(t)
	p, served := tlsProxy(t, false)
	opts := Options{Connection: Connection{ProxyCACert: ca}}
	if n, err := httpsProxyCase(t, p, served, opts, plain); err != nil || n != 1 {
		t.Errorf("--proxy-cacert, %s: err %v, proxy served %d", plain, err, n)
	}
	if _, err := httpsProxyCase(t, p, served, opts, secure); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("--proxy-cacert, %s: the origin was trusted by the proxy's CA: err %v", secure, err)
	}
	opts.Connection.ProxyCACert = filepath.Join(t.TempDir(), "none.pem")
	if _, err := NewClient(opts); err == nil || !strings.Contains(err.Error(), "--proxy-cacert") {
		t.Errorf("a missing --proxy-cacert file: err %v", err)
	}
}
