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

// A 301 or 302 to a PUT sends the PUT again, with its body and digests:
// RFC 9110 §15.4.2 and §15.4.3 let a client change POST alone into a GET,
// and curl keeps every other method. net/http made it a GET without
// content, so that `hdig get -L -T FILE` answered by a 301 (http to https,
// say) uploaded nothing and reported the GET's body, exit 0. Once a hop
// keeps the body, a later 307 or 308 sends it too.
func TestRedirectKeepsPut(t *testing.T) {
	for _, tt := range []struct {
		name  string
		codes []int // the redirects, in order
		want  string
	}{
		{"301", []int{http.StatusMovedPermanently}, "PUT"},
		{"302", []int{http.StatusFound}, "PUT"},
		{"301 then 307", []int{http.StatusMovedPermanently, http.StatusTemporaryRedirect}, "PUT"},
		{"302 then 308", []int{http.StatusFound, http.StatusPermanentRedirect}, "PUT"},
		{"303", []int{http.StatusSeeOther}, "GET"},
	} {
		srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
			hop := len(r.URL.Path) - len("/up") // "/up", "/up1", "/up11", …
			if hop < len(tt.codes) {
				http.Redirect(w, r, r.URL.Path+"1", tt.codes[hop])
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
		code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "-L", "-X", "PUT", "-H", "Content-Type: text/plain",
			"--data-binary", "new content", srv.URL+"/up")
		last := seen.last(t)
		put := tt.want == "PUT"
		has := last.Header.Get("Content-Digest") != "" && last.Header.Get("Repr-Digest") != ""
		typed := last.Header.Get("Content-Type") == "text/plain"
		if code != 0 || last.Method != tt.want || has != put || typed != put || (string(last.Body) == "new content") != put {
			t.Errorf("%s: exit %d, %s with Content-Type %q, Content-Digest %q, body %q; stderr %s", tt.name, code, last.Method,
				last.Header.Get("Content-Type"), last.Header.Get("Content-Digest"), last.Body, errOut)
		}
	}
}
