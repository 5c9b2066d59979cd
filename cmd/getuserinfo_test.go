package cmd

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A URL's user:password@ goes on every request to its origin, a redirect
// to an absolute URL of that origin included, as curl sends it (and as
// -u's field goes): net/http makes Basic auth of a URL's userinfo only for
// that one request, so the hop was refused with 401.
func TestGetURLUserinfoAcrossSameOriginRedirect(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "me" || p != "pw" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/from" {
			http.Redirect(w, r, srv.URL+"/to", http.StatusFound)
			return
		}
		w.Write([]byte("x"))
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://me:pw@", 1) + "/from"
	if code, out, errOut := runHdig(t, "get", "-s", "-S", "-L", "--no-cache", u); code != 0 || out != "x" {
		t.Errorf("exit %d, %q: %s; want the hop to the same origin authorized", code, out, errOut)
	}
}
