package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trailer226 sends a Repr-Digest trailer with a 226: its value decides.
type trailer226 struct {
	http.ResponseWriter
	is226 bool
}

func (m *trailer226) WriteHeader(code int) {
	if code == http.StatusIMUsed {
		m.is226 = true
		m.Header().Set("Trailer", "Repr-Digest")
		m.Header().Del("Content-Length")
	}
	m.ResponseWriter.WriteHeader(code)
}

// Issue 9: a deprecated digest in the trailer of a 226 is computed and its
// mismatch fails the delta (hdig then fetches the whole, which verifies).
func TestGetDeltaTrailerMismatch(t *testing.T) {
	site, cacheDir := t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	url := deltaOrigin(t, site, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m := &trailer226{ResponseWriter: w}
			h.ServeHTTP(m, r)
			if m.is226 {
				w.Header().Set("Repr-Digest", "md5=:AAAAAAAAAAAAAAAAAAAAAA==:")
			}
		})
	}) + "/app.js"
	out := filepath.Join(t.TempDir(), "app.js")
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url); code != 0 {
		t.Fatalf("first: exit %d: %s", code, errOut)
	}
	os.WriteFile(file, versionText(2), 0o644)
	code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, url)
	if code != 0 || v.Status != 200 || v.Transfer.Strategy == "delta" || v.Verdict != "verified" {
		t.Fatalf("exit %d, %+v: %s", code, v, errOut)
	}
	if w := strings.Join(v.Warnings, "\n"); !strings.Contains(w, "Repr-Digest md5 mismatch") || !strings.Contains(w, "fetched in full instead") {
		t.Errorf("warnings %q, want the md5 mismatch of the 226 and the full fetch", v.Warnings)
	}
	assertFile(t, out, string(versionText(2)))
}
