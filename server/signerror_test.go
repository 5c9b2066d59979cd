package server

import (
	"net/http"
	"testing"
	"time"

	"github.com/hdig/hdig/httpsig"
)

// TestSignedErrorResponses: the error responses of a GET (412 of a failed
// If-Match, 416 of a range past the end, for the identity and for a gzip
// variant, GET and HEAD) are problem details like every other error, with
// the Repr-Digest of their own body, and signed over exactly the fields
// sent: the signature verifies against the response as received (so it
// covers no field that is absent), and no field of the representation
// (Unencoded-Digest, Content-Encoding, ETag) is left in or covered.
func TestSignedErrorResponses(t *testing.T) {
	k := signingKey(t)
	_, ts := start(t, fixture(t), WithSigningKey(k, "", "origin", time.Hour))
	pol := verifyPolicy(t, k)
	for _, c := range []struct {
		method, target string
		headers        []string
		status         int
	}{
		{"GET", "/hello.json", []string{"If-Match: \"other\""}, http.StatusPreconditionFailed},
		{"HEAD", "/hello.json", []string{"If-Match: \"other\""}, http.StatusPreconditionFailed},
		{"GET", "/hello.json", []string{"Range: bytes=100-"}, http.StatusRequestedRangeNotSatisfiable},
		{"GET", "/text.txt", []string{"Accept-Encoding: gzip", "Range: bytes=99999-"}, http.StatusRequestedRangeNotSatisfiable},
		{"GET", "/text.txt", []string{"Accept-Encoding: gzip", "If-Match: \"other\""}, http.StatusPreconditionFailed},
	} {
		r := raw(t, ts, c.method, c.target, c.headers...)
		wantStatus(t, r, c.status)
		wantHeader(t, r, "Content-Type", "application/problem+json")
		for _, f := range []string{"Unencoded-Digest", "Content-Encoding", "ETag", "Last-Modified"} {
			if v := r.Header.Get(f); v != "" {
				t.Errorf("%s %s %v: %s %q on a %d", c.method, c.target, c.headers, f, v, c.status)
			}
		}
		if c.method == "GET" {
			wantHeader(t, r, "Repr-Digest", sfSHA256(r.body))
		}
		if c.status == http.StatusRequestedRangeNotSatisfiable && r.Header.Get("Content-Range") == "" {
			t.Errorf("%s %v: 416 without Content-Range", c.target, c.headers)
		}
		if r.Header.Get("Signature") == "" {
			t.Errorf("%s %s %v: %d not signed", c.method, c.target, c.headers, c.status)
			continue
		}
		req := getOf(c.target)
		req.Method = c.method
		if _, err := httpsig.Verify(httpsig.ResponseMessage(r.Response, req), pol); err != nil {
			t.Errorf("%s %s %v: %d does not verify as sent: %v", c.method, c.target, c.headers, c.status, err)
		}
	}
	// A 304 (whose Content-Type net/http would strip after the header
	// was signed, were it still there) verifies as sent too.
	etag := raw(t, ts, "GET", "/hello.json").Header.Get("ETag")
	r := raw(t, ts, "GET", "/hello.json", "If-None-Match: "+etag)
	wantStatus(t, r, http.StatusNotModified)
	if _, err := httpsig.Verify(httpsig.ResponseMessage(r.Response, getOf("/hello.json")), pol); err != nil {
		t.Errorf("304 does not verify as sent: %v", err)
	}
}
