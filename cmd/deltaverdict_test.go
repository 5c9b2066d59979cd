package cmd

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// trailer226 declares field as a trailer of a 226 and drops its length.
type trailer226 struct {
	http.ResponseWriter
	field string
	is226 bool
}

func (m *trailer226) WriteHeader(code int) {
	if code == http.StatusIMUsed {
		m.is226 = true
		m.Header().Set("Trailer", m.field)
		m.Header().Del("Content-Length")
	}
	m.ResponseWriter.WriteHeader(code)
}

// A digest in the trailer of a 226 is computed and its mismatch fails the
// delta (hdig then fetches the whole, which verifies): Repr-Digest in a
// deprecated algorithm (issue 9), and the fields outside RFC 9530 a 200's
// trailer is checked for (found by review: a 226's were never compared).
func TestGetDeltaTrailerMismatch(t *testing.T) {
	wrong := sha256.Sum256([]byte("another version"))
	for _, tc := range []struct{ field, value, warn string }{
		{"Repr-Digest", "md5=:AAAAAAAAAAAAAAAAAAAAAA==:", "Repr-Digest md5 mismatch"},
		{"Unencoded-Digest", "sha-256=:" + base64.StdEncoding.EncodeToString(wrong[:]) + ":", "Unencoded-Digest sha-256 mismatch"},
		{"X-Amz-Checksum-Sha256", base64.StdEncoding.EncodeToString(wrong[:]), "sha-256 mismatch"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			code, v, errOut, out := secondVersion(t, func(w http.ResponseWriter, r *http.Request, h http.Handler) {
				m := &trailer226{ResponseWriter: w, field: tc.field}
				h.ServeHTTP(m, r)
				if m.is226 {
					w.Header().Set(tc.field, tc.value)
				}
			})
			if code != 0 || v.Status != 200 || v.Transfer.Strategy == "delta" || v.Verdict != "verified" {
				t.Fatalf("exit %d, %+v: %s", code, v, errOut)
			}
			if w := strings.Join(v.Warnings, "\n"); !strings.Contains(w, tc.warn) || !strings.Contains(w, "fetched in full instead") {
				t.Errorf("warnings %q, want %q of the 226 and the full fetch", v.Warnings, tc.warn)
			}
			assertFile(t, out, string(versionText(2)))
		})
	}
}
