package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --fail-with-body releases the error body; -w's %{size_download} (and
// --json's received) counts the body bytes read off the network, so they
// count it: they said 0 beside the 9 bytes written.
func TestFailWithBodyCountsBytes(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("not here\n"))
	})
	code, out, errOut := runHdig(t, "get", "-s", "--no-cache", "--fail-with-body", "-w", "[%{http_code} %{size_download}]", srv.URL)
	if code != ExitNetwork || out != "not here\n[404 9]" {
		t.Errorf("stdout: exit %d, %q; stderr %s", code, out, errOut)
	}
	dst := filepath.Join(t.TempDir(), "f")
	code, out, errOut = runHdig(t, "get", "-s", "--no-cache", "--fail-with-body", "--json", "-o", dst, srv.URL)
	if v := decodeVerdict(t, out); code != ExitNetwork || v.Status != 404 || v.Transfer.Received != 9 {
		t.Errorf("-o: exit %d, %+v; stderr %s", code, v, errOut)
	}
	assertFile(t, dst, "not here\n")
}

// Under -s, --fail-with-body's note that an existing -o FILE was kept is
// not printed, as no other warning is; -sS prints it.
func TestFailWithBodySilent(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("not here\n"))
	})
	dst := filepath.Join(t.TempDir(), "f")
	os.WriteFile(dst, []byte("precious"), 0o644)
	if code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "--fail-with-body", "-o", dst, srv.URL); code != ExitNetwork || errOut != "" {
		t.Errorf("-s: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runHdig(t, "get", "-sS", "--no-cache", "--fail-with-body", "-o", dst, srv.URL); code != ExitNetwork || !strings.Contains(errOut, "not written") {
		t.Errorf("-sS: exit %d, stderr %q", code, errOut)
	}
	assertFile(t, dst, "precious")
}
