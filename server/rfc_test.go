package server

import (
	"net/http"
	"testing"
)

// RFC 9530 Appendix B.1: full representation, Content-Digest = Repr-Digest.
func TestRFC9530B1(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=10")
	wantStatus(t, r, http.StatusOK)
	wantHeader(t, r, "Content-Type", "application/json")
	wantHeader(t, r, "Content-Length", "19")
	wantHeader(t, r, "Content-Digest", helloRepr)
	wantHeader(t, r, "Repr-Digest", helloRepr)
	if string(r.body) != hello {
		t.Errorf("body = %q", r.body)
	}
}

// Appendix B.2: HEAD, Content-Digest of empty content.
func TestRFC9530B2(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "HEAD", "/hello.json", "Want-Content-Digest: sha-256=10")
	wantStatus(t, r, http.StatusOK)
	wantHeader(t, r, "Content-Type", "application/json")
	wantHeader(t, r, "Content-Digest", emptySHA)
	wantHeader(t, r, "Repr-Digest", helloRepr)
	if len(r.body) != 0 {
		t.Errorf("HEAD body = %q", r.body)
	}
}

// Appendix B.3: 206, Content-Digest over the range, Repr-Digest over all.
func TestRFC9530B3(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=10-18", "Want-Content-Digest: sha-256=10")
	wantStatus(t, r, http.StatusPartialContent)
	wantHeader(t, r, "Content-Type", "application/json")
	wantHeader(t, r, "Content-Range", "bytes 10-18/19")
	wantHeader(t, r, "Content-Digest", rangeB3)
	wantHeader(t, r, "Repr-Digest", helloRepr)
	if string(r.body) != "\"world\"}\n" {
		t.Errorf("body = %q", r.body)
	}
}

// Without Want-Content-Digest only Repr-Digest is sent.
func TestNoContentDigestUnasked(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "GET", "/hello.json")
	wantHeader(t, r, "Repr-Digest", helloRepr)
	wantHeader(t, r, "Content-Digest", "")
	if etag := r.Header.Get("ETag"); etag != `"sha256-RK_0qy18MlBSVnWgjwz6lZEWjP_lF5HF9bvEF8FabDg"` {
		t.Errorf("ETag = %s", etag)
	}
	if r.Header.Get("Last-Modified") == "" {
		t.Error("no Last-Modified")
	}
}

// Want-Repr-Digest: weights choose, 0 excludes, ties give several members,
// malformed or unknown preferences fall back to sha-256 (Appendix C).
func TestWantReprDigest(t *testing.T) {
	_, ts := start(t, fixture(t))
	tests := []struct{ name, want, repr string }{
		{"sha-512 preferred", "sha-512=10, sha-256=1", helloSHA512},
		{"tie", "sha-256=5, sha-512=5", helloRepr + ", " + helloSHA512},
		{"deprecated honoured (C.1)", "sha-256=3, sha=10", "sha=:yyTATouGJ50S3R4iWotz3qq6P9Y=:"},
		{"sha-256 refused", "sha-256=0", helloSHA512},
		{"all refused", "sha-256=0, sha-512=0", ""},
		{"unknown algorithm", "blake3=10", helloRepr},
		{"malformed: bare key", "sha-512", helloRepr},
		{"malformed: decimal", "sha-512=0.5", helloRepr},
		{"malformed: out of range", "sha-512=11", helloRepr},
		{"garbage", "%%%", helloRepr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := raw(t, ts, "GET", "/hello.json", "Want-Repr-Digest: "+tt.want)
			wantStatus(t, r, http.StatusOK)
			wantHeader(t, r, "Repr-Digest", tt.repr)
		})
	}
}

// Want-Content-Digest selects the Content-Digest algorithm independently.
func TestWantContentDigest(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-512=3", "Want-Repr-Digest: sha-256=9")
	wantHeader(t, r, "Content-Digest", helloSHA512)
	wantHeader(t, r, "Repr-Digest", helloRepr)
	r = raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: nonsense=(")
	wantStatus(t, r, http.StatusOK)
	wantHeader(t, r, "Content-Digest", helloRepr)
}
