package delta

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/server"
)

// TestNotAcceptableIsProblem: the delta step's 406 is written by the
// server's one problem writer: application/problem+json with the
// Repr-Digest of its own body, none of the representation's fields
// (Last-Modified, ETag, Vary: Accept-Encoding, Unencoded-Digest), and,
// with a signing key, a signature that verifies over what was sent.
func TestNotAcceptableIsProblem(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	o := newOrigin(t, 1, server.WithSigningKey(priv, "", "origin", time.Hour))
	o.put(text(2000, 1))
	resp, body := o.get(map[string]string{"A-IM": "vcdiff, identity;q=0", "If-None-Match": `"sha256-unknown"`})
	if resp.StatusCode != http.StatusNotAcceptable {
		t.Fatalf("status %d, want 406", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
	sum := sha256.Sum256(body)
	if got, want := resp.Header.Get("Repr-Digest"), "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":"; got != want {
		t.Errorf("Repr-Digest %q, want %q (of the problem body)", got, want)
	}
	for _, f := range []string{"Last-Modified", "ETag", "Vary", "Unencoded-Digest", "Cache-Control"} {
		if v := resp.Header.Get(f); v != "" {
			t.Errorf("406 with %s %q", f, v)
		}
	}
	v, err := httpsig.NewVerifier("", pub)
	if err != nil {
		t.Fatal(err)
	}
	pol := httpsig.Policy{Keys: []httpsig.Key{{ID: "origin", Verifier: v}}, Label: server.SignatureLabel,
		Require: []string{"@status", "repr-digest"}}
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/a.txt"}, Header: http.Header{}}
	if _, err := httpsig.Verify(httpsig.ResponseMessage(resp, req), pol); err != nil {
		t.Errorf("406 signature: %v", err)
	}
}
