package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A 304 for the very file the cache links to -o is settled in place (no
// copy), where only sha-256 was known. A 304 whose Repr-Digest also
// carries a sha-512 (or a Digest md5, an x-goog-hash) that does not match
// the cached bytes is a mismatch of a digest hdig can compute: it must
// fail the 304 as the copy path fails it (then hdig refetches in full,
// naming the mismatch), never settle it (found by review: the member was
// 'not computed', ignored, and the in-place 304 exited 0 verified).
func TestGet304InPlaceOtherAlgorithmMismatch(t *testing.T) {
	body := []byte("the cached version, linked to -o\n")
	good, cases := wrongDigestsBeside(body)
	for _, tc := range cases {
		name, set := tc.name, tc.set
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("ETag", `"v1"`)
				if r.Header.Get("If-None-Match") == `"v1"` {
					set(w.Header())
					w.WriteHeader(http.StatusNotModified)
					return
				}
				w.Header().Set("Repr-Digest", good)
				w.Write(body)
			}))
			defer srv.Close()
			cacheDir := t.TempDir()
			out := filepath.Join(t.TempDir(), "f")
			if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, srv.URL+"/f"); code != 0 {
				t.Fatalf("fill the cache: exit %d: %s", code, errOut)
			}
			code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, srv.URL+"/f")
			t.Logf("exit %d, verdict %s, status %d, strategy %s: %s", code, v.Verdict, v.Status, v.Transfer.Strategy, errOut)
			if v.Transfer.Strategy == "not-modified" || !strings.Contains(errOut, "mismatch") {
				t.Errorf("304 with a wrong %s settled: exit %d, verdict %s, strategy %s", name, code, v.Verdict, v.Transfer.Strategy)
			}
			if got, _ := os.ReadFile(out); string(got) != string(body) {
				t.Errorf("output changed: %q", got)
			}
		})
	}
}
