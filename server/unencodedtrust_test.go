package server

import (
	"testing"
	"time"
)

// Unencoded-Digest is one rule wherever it is set (a signed response,
// setUnencoded; a dictionary-compressed one, unencodedDigest): while the
// identity's digests are not trusted (its file has not settled), only the
// sha-256 the variant was built from is known to be of the bytes the body
// decodes to, so it alone is sent. setUnencoded took a sha-512 too, hashed
// from the file as it was at that moment.
func TestUnencodedUntrustedSHA256Only(t *testing.T) {
	k := signingKey(t)
	s, ts := start(t, fixture(t), WithSigningKey(k, "", "origin", time.Hour))
	s.cfg.settle = time.Hour // the files never settle: their digests are untrusted
	r := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip", "Want-Repr-Digest: sha-512=10, sha-256=5")
	wantStatus(t, r, 200)
	if r.Header.Get("Content-Encoding") != "gzip" {
		t.Skipf("no gzip variant: %v", r.Header)
	}
	wantHeader(t, r, "Unencoded-Digest", sfSHA256([]byte(text)))
}
