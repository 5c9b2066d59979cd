package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/verify"
)

// A 304 for the version the cache links to -o FILE is settled in place
// only when the 304's Repr-Digest proves FILE, by the rule of the verdict
// word (Result.Outcome): a match of its Content-Digest, of the 304's empty
// content, proves nothing. inPlace asked verify.Verdict.Outcome, which
// counts any match: a 304 whose only sha-256 member came from a malformed
// Repr-Digest (salvaged: a match proves nothing) beside the Content-Digest
// of empty content was settled in place, exit 0 under --require-digest,
// the verdict "unverified".
func TestInPlaceNotModifiedNeedsProof(t *testing.T) {
	data := genData(1000, 1)
	empty := sha256.Sum256(nil)
	full := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.Header().Set("Repr-Digest", sha256Field(data)+", x=(")
			w.Header().Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(empty[:])+":")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full++
		w.Header().Set("Repr-Digest", sha256Field(data))
		w.Write(data)
	}))
	defer srv.Close()
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	get := func() (*Result, error) {
		sink, err := NewFileSink(path)
		if err != nil {
			t.Fatal(err)
		}
		req := &Request{URL: srv.URL + "/f", Policy: verify.DefaultPolicy(), RequireDigest: true, Delta: &Delta{Cache: store, Output: path}}
		return c.Get(context.Background(), req, sink)
	}
	if _, err := get(); err != nil {
		t.Fatal(err)
	}
	res, err := get()
	if err == nil && res.Outcome() != verify.Verified {
		t.Fatalf("--require-digest: no error, outcome %s, strategy %s (checks %v); want verified or an error", res.Outcome(), res.Strategy, res.Verdict.Checks)
	}
	if err != nil || full != 2 {
		t.Errorf("Get: %v, %d full GETs; want the unproven 304 refused and the whole fetched again", err, full)
	}
	assertFileBytes(t, path, data)
}
