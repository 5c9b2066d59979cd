package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/fetch"
)

// -I -o FILE writes the heads to FILE, as curl -I -o does, released as a
// body is: renamed into place once the HEAD verified, an existing FILE
// left as it was when it did not (a 404, a Content-Digest that is not
// that of empty content). FILE was ignored: nothing was written to it, and
// the heads went to stdout.
func TestHeadOutputFile(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
			return
		case "/lying":
			w.Header().Set("Content-Digest", helloSHA256) // a HEAD's content is empty
		}
		helloHandler(w, r)
	})
	dir := t.TempDir()
	dst := filepath.Join(dir, "h.txt")
	code, stdout, errOut := runHdig(t, "get", "-s", "-I", "-o", dst, srv.URL+"/f")
	b, _ := os.ReadFile(dst)
	if code != 0 || stdout != "" || !strings.HasPrefix(string(b), "HTTP/1.1 200 OK\r\n") || !strings.Contains(string(b), "Repr-Digest: "+helloSHA256+"\r\n") {
		t.Fatalf("exit %d, stdout %q, FILE %q; stderr %s", code, stdout, b, errOut)
	}
	for _, path := range []string{"/missing", "/lying"} {
		os.WriteFile(dst, []byte("precious"), 0o644)
		code, _, errOut = runHdig(t, "get", "-s", "-I", "-o", dst, srv.URL+path)
		if code == 0 {
			t.Errorf("%s: exit 0: %s", path, errOut)
		}
		assertFile(t, dst, "precious")
		assertNoFile(t, dst+fetch.PartSuffix)
	}
}
