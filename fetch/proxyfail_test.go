package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestProxyFailureSaysProxy: a proxy that refuses the tunnel (a 407 or a
// 502 to CONNECT) or cannot be reached is a network failure (exit 4)
// told as the proxy's, on one line, its password never named: not a bare
// "Bad Gateway" the user would take for the origin's answer.
func TestProxyFailureSaysProxy(t *testing.T) {
	t.Setenv("no_proxy", "") // the user's environment must not send the loopback origin around the proxy
	t.Setenv("NO_PROXY", "")
	answering := func(code int) string {
		p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
		}))
		t.Cleanup(p.Close)
		return strings.TrimPrefix(p.URL, "http://")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, c := range []struct {
		name, proxy string
		want        []string
	}{
		{"407", answering(http.StatusProxyAuthRequired), []string{"proxy", "407 Proxy Authentication Required"}},
		{"502", answering(http.StatusBadGateway), []string{"proxy", "502 Bad Gateway"}},
		{"refused", closed, []string{"proxy: cannot connect to " + closed, "connection refused"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, err := NewClient(Options{Connection: Connection{Proxy: "http://u:s3cret@" + c.proxy}})
			if err != nil {
				t.Fatal(err)
			}
			req := &Request{URL: "https://origin.test/x", Header: http.Header{}, Policy: verify.DefaultPolicy()}
			_, err = cl.Get(context.Background(), req, DiscardSink{})
			if !errors.Is(err, ErrNetwork) {
				t.Fatalf("err %v, want a network failure", err)
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
			if strings.Contains(msg, "s3cret") || strings.Contains(msg, "\n") {
				t.Errorf("%q names the password or is not one line", msg)
			}
		})
	}
}
