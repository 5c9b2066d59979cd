package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -c - writes the jar to stdout after the transfer, as curl does, rather
// than to a file named "-" in the working directory.
func TestCookieJarDashIsStdout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "abc123", Path: "/"})
		w.Write([]byte("body"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := runHdig(t, "get", "-s", "--no-cache", "-o", filepath.Join(dir, "f"), "-c", "-", srv.URL+"/f")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
		t.Errorf("-c - wrote a file named \"-\"")
	}
	if !strings.Contains(out, "\tsid\tabc123") {
		t.Errorf("stdout %q: want the jar's sid line", out)
	}
}
