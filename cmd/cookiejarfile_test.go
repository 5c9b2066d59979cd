package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -c FILE is written as curl writes it, through a temporary file renamed
// onto FILE, mode 0600: os.WriteFile kept an existing jar's mode (a 0644
// jar of session cookies stayed readable by all), wrote through a link at
// FILE into the file it names, and lost the jar on a failed write.
func TestCookieJarFileWrittenAfresh(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "secret"})
	}))
	defer srv.Close()
	dir := t.TempDir()
	jar, other := filepath.Join(dir, "jar"), filepath.Join(dir, "other")
	os.WriteFile(jar, []byte("# Netscape HTTP Cookie File\n"), 0o644)
	os.Chmod(jar, 0o644)
	if code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "-c", jar, srv.URL+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if fi, err := os.Stat(jar); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the jar written: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	os.WriteFile(other, []byte("keep"), 0o644)
	os.Remove(jar)
	os.Symlink(other, jar)
	if code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "-c", jar, srv.URL+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(other); string(b) != "keep" {
		t.Errorf("the file a link at -c names was written: %q", b)
	}
	if b, _ := os.ReadFile(jar); !strings.Contains(string(b), "\tsid\tsecret\n") {
		t.Errorf("the jar holds %q", b)
	}
}
