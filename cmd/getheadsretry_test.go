package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// With --retry, -i and -D show the heads of every attempt, as curl does:
// the 503 that was retried, then the 200 whose body was written. They
// showed the 503 alone, so the heads printed before the body (its status,
// ETag, digests) were not that body's.
func TestIncludeShowsRetriedHeads(t *testing.T) {
	for _, out := range []string{"", "-o"} {
		t.Run("to"+out, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				n++
				first := n == 1
				mu.Unlock()
				if first {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				helloHandler(w, r)
			})
			dir := t.TempDir()
			hdr := filepath.Join(dir, "h.txt")
			args := []string{"get", "-s", "--no-cache", "--retry", "1", "--retry-delay", "0.01", "-i", "-D", hdr}
			if out != "" {
				args = append(args, "-o", filepath.Join(dir, "f"))
			}
			code, stdout, errOut := runHdig(t, append(args, srv.URL)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			b, _ := os.ReadFile(hdr)
			for what, got := range map[string]string{"-i": stdout, "-D": string(b)} {
				heads := strings.Split(got, "\r\n\r\n")
				if len(heads) < 2 || !strings.HasPrefix(heads[0], "HTTP/1.1 503 ") || !strings.HasPrefix(heads[1], "HTTP/1.1 200 OK\r\n") {
					t.Errorf("%s: %q, want the 503's heads, then the 200's", what, got)
				}
			}
		})
	}
}

// -I -L prints the heads of every response, redirect hops too, as curl -IL
// does (and as -i -L did): it printed the final response's alone.
func TestHeadShowsRedirectHeads(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		helloHandler(w, r)
	})
	code, stdout, errOut := runHdig(t, "get", "-s", "-I", "-L", srv.URL+"/old")
	heads := strings.Split(stdout, "\r\n\r\n")
	if code != 0 || len(heads) != 3 || !strings.HasPrefix(heads[0], "HTTP/1.1 302 Found\r\n") ||
		!strings.HasPrefix(heads[1], "HTTP/1.1 200 OK\r\n") || !strings.Contains(heads[1], "Repr-Digest: "+helloSHA256) || heads[2] != "" {
		t.Errorf("-I -L: exit %d, %q; stderr %s", code, stdout, errOut)
	}
}
