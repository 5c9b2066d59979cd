package cmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/server/servertest"
)

// -J's download was linked in the base-version cache under its scratch
// name (.hdig-J.NAME), which the rename to Content-Disposition's name
// takes away at once: the cache kept an entry for a file that is gone.
// Both ways to the file (a download in pieces; a GET offering a cached
// base) now link nothing under the scratch name.
func TestGetRemoteHeaderNameCacheLinksNoScratch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Disposition", `attachment; filename="final.json"`)
		io.WriteString(w, servertest.Hello)
	}))
	defer srv.Close()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	check := func(step string) {
		t.Helper()
		store, err := cache.Open(cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		es, _ := store.Entries()
		for _, e := range es {
			if !e.Linked() {
				continue
			}
			if _, err := os.Stat(e.Path); err != nil || strings.HasPrefix(filepath.Base(e.Path), ".hdig-J.") {
				t.Errorf("%s: the cache links %s: %v", step, e.Path, err)
			}
		}
	}
	getJ := func(step string) {
		t.Helper()
		t.Chdir(t.TempDir())
		if code, _, errOut := runHdig(t, "get", "-s", "--cache-dir", cacheDir, "-OJ", srv.URL+"/h.json"); code != 0 {
			t.Fatalf("%s: exit %d: %s", step, code, errOut)
		}
		if _, err := os.Stat("final.json"); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		check(step)
	}
	getJ("a download")
	if code, _, errOut := runHdig(t, "get", "-s", "--cache-dir", cacheDir, "-o", filepath.Join(t.TempDir(), "plain"), srv.URL+"/h.json"); code != 0 {
		t.Fatalf("-o: exit %d: %s", code, errOut)
	}
	getJ("a GET offering the cached base")
}
