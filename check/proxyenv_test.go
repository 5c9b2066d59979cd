package check

import (
	"net/http"
	"testing"
)

// TestDefaultClientProxy: the default client takes its proxy from the
// environment by hdig get's rule (fetch's), not net/http's: $all_proxy is
// the fallback of every scheme, and $HTTP_PROXY is not read (httpoxy).
func TestDefaultClientProxy(t *testing.T) {
	for _, v := range []string{"http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "no_proxy", "NO_PROXY"} {
		t.Setenv(v, "")
	}
	t.Setenv("HTTP_PROXY", "http://upper.test:3128")
	t.Setenv("all_proxy", "http://all.test:3128")
	tr := Options{}.withDefaults().Client.Transport.(*http.Transport)
	r, _ := http.NewRequest("GET", "http://o.test/", nil)
	u, err := tr.Proxy(r)
	if err != nil || u == nil || u.Host != "all.test:3128" {
		t.Errorf("proxy %v (%v), want all.test:3128", u, err)
	}
}
