package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// -T FILE to a URL with no file part (an empty path, or one ending in /)
// appends FILE's name, percent-encoded, as curl does; a URL naming a file
// is left as it is, and so is -T - (stdin has no name).
func TestUploadAppendsFileName(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.EscapedPath())
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	f := filepath.Join(t.TempDir(), "my file+1.txt")
	os.WriteFile(f, []byte("hello\n"), 0o644)
	for _, c := range []struct{ url, want string }{
		{srv.URL, "PUT /my%20file%2B1.txt"},
		{srv.URL + "/dir/", "PUT /dir/my%20file%2B1.txt"},
		{srv.URL + "/dir/?q=1", "PUT /dir/my%20file%2B1.txt"},
		{srv.URL + "/dir/named", "PUT /dir/named"},
	} {
		got = nil
		if code, _, errOut := runHdig(t, "get", "-s", "-T", f, c.url); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.url, code, errOut)
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("-T FILE %s: requests %q, want %q", c.url, got, c.want)
		}
	}
	got = nil
	if code, _, errOut := runHdigIn(t, "hello\n", "get", "-s", "-T", "-", srv.URL+"/dir/"); code != 0 || len(got) != 1 || got[0] != "PUT /dir/" {
		t.Errorf("-T - to a folder: exit %d, requests %q: %s", code, got, errOut)
	}
}

// -T given twice: hdig sends one upload, and keeping either would upload a
// file other than one asked for (curl pairs each -T with a URL): a usage
// error before anything is sent.
func TestUploadFileTwiceRefused(t *testing.T) {
	var n int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
	}))
	defer srv.Close()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("a\n"), 0o644)
	os.WriteFile(b, []byte("b\n"), 0o644)
	code, _, errOut := runHdig(t, "get", "-s", "-T", a, "-T", b, srv.URL+"/up/x")
	if code != ExitUsage || n != 0 {
		t.Errorf("-T twice: exit %d, %d requests, want exit %d and none: %s", code, n, ExitUsage, errOut)
	}
}
