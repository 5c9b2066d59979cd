package fetch

import (
	"net/http"
	"strings"
	"testing"
)

// proxyVars are the variables the environment's proxy is read from.
var proxyVars = []string{"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
	"all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY", "REQUEST_METHOD"}

// TestEnvironmentProxy: without -x, the proxy is the environment's as
// curl 7.88 reads it: $http_proxy for http, never $HTTP_PROXY (httpoxy: a
// CGI request's Proxy field sets it), $https_proxy or $HTTPS_PROXY for
// https, else $all_proxy or $ALL_PROXY, lower case first; an http proxy
// without port at 1080. Unlike curl, localhost and loopback addresses are
// reached directly: a proxy would reach its own.
func TestEnvironmentProxy(t *testing.T) {
	for _, c := range []struct {
		env       map[string]string
		url, want string
	}{
		{map[string]string{"HTTP_PROXY": "http://p.test:3128"}, "http://o.test/", ""},
		{map[string]string{"http_proxy": "p.test:3128"}, "http://o.test/", "http://p.test:3128"},
		{map[string]string{"http_proxy": "p.test"}, "http://o.test/", "http://p.test:1080"},
		{map[string]string{"http_proxy": "p.test:3128"}, "https://o.test/", ""},
		{map[string]string{"HTTPS_PROXY": "p.test:3128"}, "https://o.test/", "http://p.test:3128"},
		{map[string]string{"https_proxy": "a.test:1", "HTTPS_PROXY": "b.test:1"}, "https://o.test/", "http://a.test:1"},
		{map[string]string{"all_proxy": "socks5h://p.test:1080"}, "http://o.test/", "socks5h://p.test:1080"},
		{map[string]string{"ALL_PROXY": "p.test:3128"}, "https://o.test/", "http://p.test:3128"},
		{map[string]string{"all_proxy": "a.test:1", "ALL_PROXY": "b.test:1"}, "http://o.test/", "http://a.test:1"},
		{map[string]string{"http_proxy": "a.test:1", "all_proxy": "b.test:1"}, "http://o.test/", "http://a.test:1"},
		{map[string]string{"http_proxy": "", "all_proxy": "b.test:1"}, "http://o.test/", "http://b.test:1"},
		{map[string]string{"http_proxy": "p.test:1", "no_proxy": "o.test"}, "http://o.test/", ""},
		{map[string]string{"http_proxy": "p.test:1", "NO_PROXY": "o.test"}, "http://o.test/", ""},
		{map[string]string{"all_proxy": "p.test:1"}, "http://127.0.0.1:8080/", ""},
		{map[string]string{"all_proxy": "p.test:1"}, "http://localhost:8080/", ""},
		{map[string]string{"all_proxy": "p.test:1"}, "http://[::1]/", ""},
		{map[string]string{"all_proxy": "p.test:1"}, "http://127.1/", ""},
	} {
		for _, v := range proxyVars {
			t.Setenv(v, "")
		}
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		p, err := Connection{}.proxyFunc()
		if err != nil {
			t.Fatal(err)
		}
		r, _ := http.NewRequest("GET", c.url, nil)
		u, err := p(r)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != c.want {
			t.Errorf("%v, %s: proxy %q (%v), want %q", c.env, c.url, got, err, c.want)
		}
	}
}

// TestEnvironmentProxyRedacted: a malformed proxy variable is named in
// the error without its password.
func TestEnvironmentProxyRedacted(t *testing.T) {
	for _, v := range proxyVars {
		t.Setenv(v, "")
	}
	t.Setenv("http_proxy", "ftp://user:s3cret@p.test:21")
	p, err := Connection{}.proxyFunc()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "http://o.test/", nil)
	if _, err := p(r); err == nil || !strings.Contains(err.Error(), "http_proxy") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %v: want one naming $http_proxy without its password", err)
	}
}
