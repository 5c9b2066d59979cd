package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --max-filesize: a body over it is refused with exit 4 (the contract's
// "the transfer was refused"), nothing is written, and the error says why.
func TestGetMaxFileSize(t *testing.T) {
	body := strings.Repeat("x", 4096)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(body))
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "f")
	for _, args := range [][]string{
		{"get", "--no-cache", "--max-filesize", "1k", srv.URL},
		{"get", "--no-cache", "--max-filesize", "1k", "-o", out, srv.URL},
	} {
		code, stdout, stderr := runHdig(t, args...)
		if code != ExitNetwork || stdout != "" || !strings.Contains(stderr, "--max-filesize") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 4, nothing, the flag named", args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("-o file written")
	}
	if code, _, _ := runHdig(t, "get", "--no-cache", "--max-filesize", "1k", "-o", out, srv.URL+"/", "--max-filesize", "8k"); code != 0 {
		t.Errorf("within --max-filesize: exit %d", code)
	}
	for _, bad := range [][]string{{"--max-filesize", "lots"}, {"--max-ratio", "-1"}} {
		if code, _, _ := runHdig(t, append([]string{"get", "--no-cache"}, append(bad, srv.URL)...)...); code != ExitUsage {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}
