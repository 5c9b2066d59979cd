package server

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPutMalformedDigestRefused: an upload whose Content-Digest or
// Repr-Digest cannot be read (not a Dictionary, an upper-case key, a
// member that is no Byte Sequence) asked for integrity the server cannot
// check: it is refused with a 400 naming the field, and nothing is stored
// (RFC 9651 §4.2 lets a recipient treat the message as malformed). It was
// stored unverified with 201, the uploader never told. A field of
// algorithms the server does not know stays accepted (RFC 9530 §2: a
// recipient may ignore digests it does not support).
func TestPutMalformedDigestRefused(t *testing.T) {
	body := []byte(hello)
	good := sfSHA256(body)
	upper := "SHA-256" + strings.TrimPrefix(good, "sha-256")
	bare := "sha-256=" + strings.Trim(strings.TrimPrefix(good, "sha-256="), ":")
	for _, c := range []struct{ name, header, field string }{
		{"bad base64", "Content-Digest: sha-256=:!!!!:", "Content-Digest"},
		{"upper-case key", "Repr-Digest: " + upper, "Repr-Digest"},
		{"token, not a byte sequence", "Content-Digest: sha-256=AAAA", "Content-Digest"},
		{"unpadded token beside a good member", "Repr-Digest: " + good + ", sha-512=" + base64.RawStdEncoding.EncodeToString(make([]byte, 64)), "Repr-Digest"},
		{"bare base64", "Content-Digest: " + bare, "Content-Digest"},
		// Content-MD5 has one algorithm: a value that is not an MD5 in
		// base64 (or hex) is an md5 the server cannot read.
		{"Content-MD5 not base64", "Content-MD5: !!!!", "Content-MD5"},
		{"Content-MD5 of another length", "Content-MD5: AAAA", "Content-MD5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fixture(t)
			_, ts := start(t, dir, WithWritable())
			r := upload(t, ts, "PUT", "/new.json", body, c.header)
			wantStatus(t, r, http.StatusBadRequest)
			wantHeader(t, r, "Content-Type", "application/problem+json")
			var p problem
			must(t, json.Unmarshal(r.body, &p))
			if p.Field != c.field || !strings.Contains(p.Detail, "nothing was stored") {
				t.Errorf("problem %+v, want field %s and nothing stored", p, c.field)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.json")); err == nil {
				t.Error("new.json was stored")
			}
			noTemps(t, dir)
		})
	}
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	wantStatus(t, upload(t, ts, "PUT", "/new.json", body, "Content-Digest: foo=:AAAA:"), http.StatusCreated)
	wantStatus(t, upload(t, ts, "PUT", "/new2.json", body, "Content-Digest: "+good), http.StatusCreated)
}
