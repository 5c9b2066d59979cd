package cmd

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// A redirect --max-redirs refuses leaves its response the transfer's last,
// as curl reports it: -w's %{http_code} and --json's status say 302, and
// -i shows its heads. They said 000 and 0, and -i showed nothing.
func TestMaxRedirsReportsLastAnswer(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		helloHandler(w, r)
	})
	code, out, errOut := runHdig(t, "get", "-s", "--no-cache", "-L", "--max-redirs", "0", "-i", "-w", "[%{http_code} %{num_redirects}]", srv.URL+"/old")
	if code != ExitNetwork || !strings.HasPrefix(out, "HTTP/1.1 302 Found\r\n") || !strings.HasSuffix(out, "\r\n\r\n[302 0]") {
		t.Errorf("stdout: exit %d, %q; stderr %s", code, out, errOut)
	}
	dst := filepath.Join(t.TempDir(), "f")
	code, out, errOut = runHdig(t, "get", "-s", "--no-cache", "-L", "--max-redirs", "0", "--json", "-o", dst, srv.URL+"/old")
	if v := decodeVerdict(t, out); code != ExitNetwork || v.Status != http.StatusFound || v.Verdict != "error" {
		t.Errorf("-o: exit %d, %+v; stderr %s", code, v, errOut)
	}
	assertNoFile(t, dst)
}
