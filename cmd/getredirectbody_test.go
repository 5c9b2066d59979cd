package cmd

import (
	"net/http"
	"testing"
)

// A 303 (or a 301/302 to a POST) turns the request into a GET without
// content: the Content-Digest and Repr-Digest hdig added for the body
// the first request carried are not sent with it. They were: the GET
// claimed content it did not have, and told the redirect's target,
// another origin maybe, the sha-256 of the posted form (a guessable
// password's). A 307 or 308 sends the body again, and its digests with it.
func TestRedirectDropsBodyDigests(t *testing.T) {
	for _, tt := range []struct {
		code int
		want string // the method the target sees
		kept bool
	}{
		{http.StatusSeeOther, "GET", false},
		{http.StatusFound, "GET", false},
		{http.StatusTemporaryRedirect, "POST", true},
		{http.StatusPermanentRedirect, "POST", true},
	} {
		srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/form" {
				http.Redirect(w, r, "/done", tt.code)
				return
			}
			helloHandler(w, r)
		})
		code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "-L", "-d", "password=1234", srv.URL+"/form")
		last := seen.last(t)
		has := last.Header.Get("Content-Digest") != "" || last.Header.Get("Repr-Digest") != ""
		if code != 0 || last.Method != tt.want || has != tt.kept || (tt.kept && string(last.Body) != "password=1234") {
			t.Errorf("%d: exit %d, %s with Content-Digest %q, Repr-Digest %q, body %q; stderr %s", tt.code, code, last.Method,
				last.Header.Get("Content-Digest"), last.Header.Get("Repr-Digest"), last.Body, errOut)
		}
	}
}
