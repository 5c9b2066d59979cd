package cmd

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/cache"
)

// Under -k nothing proves who sent the bytes: a version (or a dictionary)
// kept from such a run would be released by a later 304 naming its ETag,
// or used as a 226's base, in runs that do check the certificate. So a
// -k run over https keeps nothing in the cache. It kept the version.
func TestGetInsecureKeepsNothing(t *testing.T) {
	body := []byte("from an unauthenticated host\n")
	sum := sha256.Sum256(body)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		w.Header().Set("Use-As-Dictionary", `match="/*"`)
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write(body)
	}))
	defer srv.Close()
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cache")
	if code, _, errOut := runHdig(t, "get", "-s", "-k", "--cache-dir", cacheDir, "-o", filepath.Join(dir, "out"), srv.URL+"/f"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	store, err := cache.Open(cacheDir)
	if err != nil {
		return // no cache made at all
	}
	defer store.Close()
	if es, _ := store.Entries(); len(es) > 0 {
		t.Errorf("a -k run kept %d versions in the cache: %+v", len(es), es)
	}
}
