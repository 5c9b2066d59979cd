package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A 304 to the caller's own If-None-Match is not a body, through Do,
// Get and Download alike: nothing is written, FILE stays, no mismatch
// against empty content.
func TestOwnConditionNotModified(t *testing.T) {
	data := genData(1000, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Repr-Digest", sha256Field(data))
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(data)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("mine"), 0o644)
	req := func() *Request {
		return &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Header: http.Header{"If-None-Match": {`"v1"`}}}
	}
	check := func(how string, res *Result, err error) {
		t.Helper()
		if err != nil || res == nil || !res.Unchanged || res.Strategy != StrategyNotModified || res.Bytes != 0 || len(res.Verdict.Mismatches()) > 0 {
			t.Errorf("%s: %v, %+v; want an unchanged not-modified result", how, err, res)
		}
		assertFileBytes(t, path, []byte("mine"))
		assertAbsent(t, path+PartSuffix, path+SidecarSuffix)
	}
	res, err := c.Download(context.Background(), req(), path, DownloadOptions{Parallel: 4})
	check("Download", res, err)
	sink, err := NewFileSink(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err = c.Get(context.Background(), req(), sink)
	check("Get", res, err)
	var out bytes.Buffer
	res, err = c.Do(context.Background(), req(), &HeldSink{Out: &out})
	check("Do to stdout", res, err)
	if out.Len() != 0 {
		t.Errorf("Do to stdout wrote %d bytes", out.Len())
	}
}

// A 304 to the cache's own offer (If-None-Match naming the cached
// version) carries no content either: a Content-Digest that is not that of
// empty content is a mismatch, as on a 304 to the caller's condition, and
// the cached copy is not used: the whole is fetched and verified (found by
// review: only Repr-Digest was compared).
func TestCacheNotModifiedChecksContentDigest(t *testing.T) {
	data := genData(1000, 3)
	var full int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Repr-Digest", sha256Field(data))
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.Header().Set("Content-Digest", sha256Field(data)) // of the representation, not of empty content
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full++
		w.Write(data)
	}))
	defer srv.Close()
	store := cachedBase(t, srv.URL+"/f", `"v1"`, data)
	c, _ := NewClient(Options{Timeout: testStall})
	var out bytes.Buffer
	req := &Request{URL: srv.URL + "/f", Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store}}
	res, err := c.Get(context.Background(), req, &HeldSink{Out: &out})
	if err != nil || res.Strategy == StrategyNotModified || full != 1 || !bytes.Equal(out.Bytes(), data) {
		t.Errorf("Get: %v, strategy %s, %d full GETs, %d bytes; want the 304 refused and the whole fetched", err, res.Strategy, full, out.Len())
	}
	if w := strings.Join(res.Verdict.Warnings, "\n"); !strings.Contains(w, "Content-Digest sha-256 mismatch") {
		t.Errorf("warnings %q, want the 304's Content-Digest mismatch", res.Verdict.Warnings)
	}
}
