package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRemoteTimeOutOfRange: -R with a Last-Modified later than the file
// times hdig can set (past 2262) leaves the file's time as written and
// says so; it never gives the file a time in the past (the year 9999
// wrapped to 1901).
func TestRemoteTimeOutOfRange(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", "Fri, 31 Dec 9999 23:59:59 GMT")
		helloHandler(w, r)
	})
	out := filepath.Join(t.TempDir(), "f")
	code, _, stderr := runHdig(t, "get", "-R", "-o", out, srv.URL+"/f")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	st, err := os.Stat(out)
	if err != nil || st.ModTime().Before(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("-R: mtime %v (%v), want the file's own", st.ModTime(), err)
	}
	if !strings.Contains(stderr, "warning: -R") {
		t.Errorf("no warning: %s", stderr)
	}
}
