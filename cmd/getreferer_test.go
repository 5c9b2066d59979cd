package cmd

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// -e ';auto' (or -e URL;auto) is curl's "set Referer to the previous URL
// when following a Location": the user asks for it, so a hop carries it.
// Without ;auto a hop carries only the Referer given (TestRedirectSends-
// NoMadeUpReferer); with it, since hops stopped carrying net/http's,
// nothing was sent.
func TestGetAutoReferer(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if v, ok := r.Header["Referer"]; ok {
			seen[r.URL.Path] = strings.Join(v, ",")
		} else {
			seen[r.URL.Path] = "(none)"
		}
		mu.Unlock()
		if r.URL.Path == "/from" {
			http.Redirect(w, r, "/to", http.StatusFound)
			return
		}
		w.Write([]byte("x"))
	}))
	defer srv.Close()
	for _, tc := range []struct{ e, first, hop string }{
		{";auto", "(none)", srv.URL + "/from"},
		{"https://example.com/;auto", "https://example.com/", srv.URL + "/from"},
		{"https://example.com/", "https://example.com/", "https://example.com/"},
	} {
		if code, _, errOut := runHdig(t, "get", "-s", "-L", "--no-cache", "-e", tc.e, srv.URL+"/from"); code != 0 {
			t.Fatalf("-e %q: exit %d: %s", tc.e, code, errOut)
		}
		mu.Lock()
		if seen["/from"] != tc.first || seen["/to"] != tc.hop {
			t.Errorf("-e %q: Referer %q then %q on the hop; want %q then %q", tc.e, seen["/from"], seen["/to"], tc.first, tc.hop)
		}
		mu.Unlock()
	}
}
