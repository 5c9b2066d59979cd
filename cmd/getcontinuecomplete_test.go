package cmd

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// -C with no part file and FILE already there: hdig asks HEAD and, when
// FILE matches its Repr-Digest, settles without a transfer. Every digest
// of the HEAD hdig can compute is a digest of FILE: a Repr-Digest member
// the policy does not accept as proof (md5, or sha-512 under --accept
// sha-256), the obsolete Digest, x-goog-hash, that does not match FILE must
// not pass as "not computed" (found by review: only the accepted
// Repr-Digest members were hashed, and the run said verified, exit 0).
func TestGetContinueCompleteOtherDigestMismatch(t *testing.T) {
	body := []byte("the finished download, already in place\n")
	s256 := sha256.Sum256(body)
	other := sha512.Sum512([]byte("some other version"))
	good := "sha-256=:" + base64.StdEncoding.EncodeToString(s256[:]) + ":"
	for _, tc := range []struct {
		name string
		set  func(h http.Header)
		args []string
	}{
		{"repr-md5", func(h http.Header) {
			h.Set("Repr-Digest", good+", md5=:"+base64.StdEncoding.EncodeToString(other[:16])+":")
		}, nil},
		{"repr-sha-512-not-accepted", func(h http.Header) {
			h.Set("Repr-Digest", good+", sha-512=:"+base64.StdEncoding.EncodeToString(other[:])+":")
		}, []string{"--accept", "sha-256"}},
		{"digest-md5", func(h http.Header) {
			h.Set("Repr-Digest", good)
			h.Set("Digest", "md5="+base64.StdEncoding.EncodeToString(other[:16]))
		}, nil},
		{"x-goog-hash", func(h http.Header) {
			h.Set("Repr-Digest", good)
			h.Set("x-goog-hash", "md5="+base64.StdEncoding.EncodeToString(other[:16]))
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gets := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("ETag", `"v1"`)
				w.Header().Set("Accept-Ranges", "bytes")
				tc.set(w.Header())
				if r.Method == http.MethodGet {
					gets++
				}
				http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
			}))
			defer srv.Close()
			out := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(out, body, 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--no-cache", "-C", "-o", out}, tc.args...)
			code, v, errOut := getJSON(t, append(args, srv.URL+"/f")...)
			t.Logf("exit %d, verdict %s, strategy %s, GETs %d: %s", code, v.Verdict, v.Transfer.Strategy, gets, errOut)
			if code != 1 || v.Verdict != "mismatch" {
				t.Errorf("-C over a complete FILE with a wrong %s: exit %d, verdict %s, want 1, mismatch", tc.name, code, v.Verdict)
			}
			if got, _ := os.ReadFile(out); string(got) != string(body) {
				t.Errorf("FILE changed: %q", got)
			}
		})
	}
}
