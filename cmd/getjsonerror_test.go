package cmd

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONMismatchSaysWhy: a mismatch found before any digest of the file
// was recorded (here the zsync control file's own Repr-Digest) printed
// {"verdict":"mismatch","digests":[]} and nothing else: the "error" key was
// written for verdict "error" only. Every failed run now says why.
func TestJSONMismatchSaysWhy(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
		w.Write([]byte("zsync: 0.6.2\n"))
	}))
	defer ts.Close()
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errOut := runHdig(t, "get", "--zsync", "--no-cache", "--json", "-o", out, ts.URL+"/f.zsync")
	var j struct {
		Verdict string `json:"verdict"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
	if code != ExitIntegrity || j.Verdict != "mismatch" || !strings.Contains(j.Error, "control file") {
		t.Errorf("exit %d, verdict %q, error %q; want 1, mismatch, the control file named\nstderr: %s", code, j.Verdict, j.Error, errOut)
	}
}
