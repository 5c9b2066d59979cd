package cmd

import (
	"bytes"
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
	_, cases := wrongDigestsBeside(body)
	for _, tc := range cases {
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
			// sha-512 is not accepted as proof here: it must be compared all the same
			args := []string{"--no-cache", "-C", "-o", out, "--accept", "sha-256"}
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
