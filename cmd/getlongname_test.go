package cmd

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteNameLongest: -O of a URL whose last segment is a file
// system's longest name (255 bytes) is written, with -J too (whose hidden
// name is longer than the URL's): hdig's own names beside it fit.
func TestRemoteNameLongest(t *testing.T) {
	name := strings.Repeat("n", 255)
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cd") != "" {
			w.Header().Set("Content-Disposition", `attachment; filename="report.json"`)
		}
		helloHandler(w, r)
	})
	dir := t.TempDir()
	if code, _, stderr := runHdig(t, "get", "-s", "-O", "--output-dir", dir, srv.URL+"/"+name); code != 0 {
		t.Fatalf("-O: exit %d, %s", code, stderr)
	}
	assertFile(t, filepath.Join(dir, name), helloBody)
	jdir := t.TempDir()
	if code, _, stderr := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", jdir, srv.URL+"/"+name+"?cd=1"); code != 0 {
		t.Fatalf("-OJ: exit %d, %s", code, stderr)
	}
	assertFile(t, filepath.Join(jdir, "report.json"), helloBody)
}
