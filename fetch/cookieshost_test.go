package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestCookieJarKeysByHostField: under -H 'Host: NAME' the cookies are the
// site NAME's, as curl keys them: those a response sets are stored (and
// written by -c) under NAME, not the address connected to, and those of
// -b FILE for NAME are sent while the address's are not.
func TestCookieJarKeysByHostField(t *testing.T) {
	var saw []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		saw = append(saw, r.Header.Get("Cookie"))
		http.SetCookie(w, &http.Cookie{Name: "set", Value: "by-site", Path: "/", MaxAge: 3600})
		w.Write([]byte("x"))
	}))
	defer ts.Close()
	j := NewCookieJar()
	file := "site.example\tFALSE\t/\tFALSE\t0\tsite\t1\n127.0.0.1\tFALSE\t/\tFALSE\t0\taddr\t1\n"
	if err := j.Load(strings.NewReader(file)); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Options{Jar: j})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		req := &Request{URL: ts.URL + "/", Header: http.Header{"Host": {"site.example"}}, Policy: verify.DefaultPolicy()}
		if _, err := c.Get(context.Background(), req, DiscardSink{}); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"site=1", "set=by-site; site=1"}; strings.Join(saw, "|") != strings.Join(want, "|") {
		t.Errorf("the origin saw cookies %q, want %q (the site's, not the address's)", saw, want)
	}
	var buf bytes.Buffer
	j.Save(&buf)
	if !strings.Contains(buf.String(), "site.example\tFALSE\t/\tFALSE\t") || !strings.Contains(buf.String(), "\tset\tby-site\n") || strings.Contains(buf.String(), "127.0.0.1\tFALSE\t/\tFALSE\t0\tset") {
		t.Errorf("-c does not hold the cookie set under site.example:\n%s", buf.String())
	}
}
