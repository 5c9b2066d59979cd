package cmd

import (
	"strings"
	"testing"
)

// TestGetEmptyNoProxyOverridesEnv: --noproxy "" is an empty list that
// replaces $no_proxy, as curl's: the host $no_proxy names goes through -x.
func TestGetEmptyNoProxyOverridesEnv(t *testing.T) {
	t.Setenv("no_proxy", "pinned.test")
	t.Setenv("NO_PROXY", "")
	srv, _ := seeingOrigin(t, nil)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	target := "http://pinned.test:" + port + "/r"
	proxy, proxied := seeingOrigin(t, nil)
	if code, _, stderr := runHdig(t, "get", "-s", "-x", proxy.URL, "--noproxy", "", "--resolve", "pinned.test:"+port+":127.0.0.1", target); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := len(proxied.all()); n != 1 {
		t.Errorf("proxy saw %d requests, want 1", n)
	}
}
