package server

import (
	"crypto/md5"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/verify"
)

// Issue 9: any computed digest of an upload that mismatches is a 400, one
// member never hides another's mismatch, and nothing is stored.
func TestPutMismatchNotHidden(t *testing.T) {
	body := []byte(`{"hello": "tampered"}` + "\n")
	sum := md5.Sum(body)
	md5Bare := verify.Base64(sum[:])[:22]
	wrongMD5 := "md5=:AAAAAAAAAAAAAAAAAAAAAA==:"
	tests := []struct {
		name, header, field, alg string
	}{
		{"deprecated md5 mismatch", "Content-Digest: " + wrongMD5, "Content-Digest", "md5"},
		{"deprecated md5 mismatch beside a sha-256 match", "Content-Digest: " + wrongMD5 + ", " + sfSHA256(body), "Content-Digest", "md5"},
		{"unpadded member and a padded wrong one", "Repr-Digest: md5=:" + md5Bare + ":, " + helloRepr, "Repr-Digest", "sha-256"},
		{"unknown member beside a wrong one", "Content-Digest: " + helloRepr + ", foo=:AAAA:", "Content-Digest", "sha-256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t)
			_, ts := start(t, dir, WithWritable())
			r := upload(t, ts, "PUT", "/hello.json", body, tt.header)
			wantStatus(t, r, http.StatusBadRequest)
			wantHeader(t, r, "Content-Type", "application/problem+json")
			var p problem
			must(t, json.Unmarshal(r.body, &p))
			if p.Field != tt.field || p.Algorithm != tt.alg || len(p.Mismatches) != 1 {
				t.Errorf("problem = %+v, want one %s %s mismatch", p, tt.field, tt.alg)
			}
			if got := readFile(t, filepath.Join(dir, "hello.json")); got != hello {
				t.Errorf("file changed to %q", got)
			}
			noTemps(t, dir)
		})
	}
}
