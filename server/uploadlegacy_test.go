package server

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An upload's Content-MD5 (RFC 1864) and obsolete RFC 3230 Digest are
// checked as its Content-Digest and Repr-Digest are (found by review: they
// were never read, and an upload whose Content-MD5 or Digest did not match
// its bytes was stored with 201/204). A mismatch is the same 400
// digest-mismatch problem, md5 included: the uploader sent it, so it is
// never ignored; an unknown legacy algorithm is ignored alone, as an
// unknown RFC 9530 key is.
func TestUploadLegacyDigestChecked(t *testing.T) {
	body := []byte(`{"hello": "tampered"}` + "\n")
	m, s := md5.Sum(body), sha256.Sum256(body)
	wm, ws := md5.Sum([]byte(hello)), sha256.Sum256([]byte(hello))
	rightMD5, wrongMD5 := verify.Base64(m[:]), verify.Base64(wm[:])
	rightSHA, wrongSHA := verify.Base64(s[:]), verify.Base64(ws[:])
	for _, tc := range []struct {
		name, header string
		field, alg   string // of the mismatch; "" when stored
	}{
		{"wrong Content-MD5", "Content-MD5: " + wrongMD5, "Content-MD5", "md5"},
		{"wrong Digest sha-256", "Digest: SHA-256=" + wrongSHA, "Digest", "sha-256"},
		{"wrong Digest md5", "Digest: md5=" + wrongMD5, "Digest", "md5"},
		{"wrong Digest md5 beside a right sha-256", "Digest: SHA-256=" + rightSHA + ", MD5=" + wrongMD5, "Digest", "md5"},
		{"unknown legacy algorithm beside a wrong one", "Digest: SHA-3=abc, SHA-256=" + wrongSHA, "Digest", "sha-256"},
		{"right Content-MD5", "Content-MD5: " + rightMD5, "", ""},
		{"right Content-MD5 in hex", "Content-MD5: " + hex.EncodeToString(m[:]), "", ""},
		{"right Digest sha-256 and md5", "Digest: SHA-256=" + rightSHA + ", MD5=" + rightMD5, "", ""},
		{"unknown legacy algorithm alone", "Digest: SHA-3=abc", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t)
			_, ts := start(t, dir, WithWritable())
			r := upload(t, ts, "PUT", "/hello.json", body, tc.header)
			want := string(body)
			if tc.field == "" {
				wantStatus(t, r, http.StatusNoContent)
			} else {
				want = hello
				wantStatus(t, r, http.StatusBadRequest)
				var p problem
				must(t, json.Unmarshal(r.body, &p))
				if p.Type != problemBase+"digest-mismatch" || p.Field != tc.field || p.Algorithm != tc.alg || len(p.Mismatches) != 1 {
					t.Errorf("problem = %+v, want one %s %s digest-mismatch", p, tc.field, tc.alg)
				}
			}
			if got := readFile(t, filepath.Join(dir, "hello.json")); got != want {
				t.Errorf("file now %q, want %q", got, want)
			}
			noTemps(t, dir)
		})
	}
}

// A Content-MD5 or Digest in the request's trailer is checked as one in
// the header is, declared in Trailer or not.
func TestUploadLegacyTrailerChecked(t *testing.T) {
	body := []byte(`{"hello": "tampered"}` + "\n")
	m, wm := md5.Sum(body), md5.Sum([]byte(hello))
	for _, tc := range []struct {
		name, declare, trailer string
		status                 int
	}{
		{"declared Content-MD5, wrong", "Content-MD5", "Content-MD5: " + verify.Base64(wm[:]), 400},
		{"declared Content-MD5, right", "Content-MD5", "Content-MD5: " + verify.Base64(m[:]), 204},
		{"declared Digest md5, wrong", "Digest", "Digest: MD5=" + verify.Base64(wm[:]), 400},
		{"declared Digest md5, right", "Digest", "Digest: MD5=" + verify.Base64(m[:]), 204},
		{"undeclared Content-MD5, not computed", "", "Content-MD5: " + verify.Base64(m[:]), 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t)
			_, ts := start(t, dir, WithWritable())
			r := rawBytes(t, ts, "PUT", chunkedPut(body, tc.declare, tc.trailer))
			if r.StatusCode != tc.status {
				t.Errorf("status %d, want %d: %s", r.StatusCode, tc.status, r.body)
			}
			want := hello
			if tc.status == 204 {
				want = string(body)
			}
			if got := readFile(t, filepath.Join(dir, "hello.json")); got != want {
				t.Errorf("file now %q, want %q", got, want)
			}
			noTemps(t, dir)
		})
	}
}
