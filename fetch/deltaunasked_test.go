package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/verify"
)

// A 226 to the caller's own A-IM (-H 'A-IM: gzip'), with no cached base
// offered, is written as it came: its body is the instance manipulated
// (here gzip-compressed), not the representation. hdig kept those bytes
// as a cached version under the 226's ETag, so the next run offered them
// as a base and a 304 without a Repr-Digest released them as the file.
func TestUnaskedDeltaBodyNotCached(t *testing.T) {
	v2 := deltaText(2)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(v2)
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v2"`)
		if r.Header.Get("A-IM") != "" {
			w.Header().Set("IM", "gzip")
			w.WriteHeader(http.StatusIMUsed)
			w.Write(gz.Bytes())
			return
		}
		w.Write(v2)
	}))
	defer srv.Close()
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	var out bytes.Buffer
	req := &Request{URL: srv.URL, Header: http.Header{"A-Im": {"gzip"}}, Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store}}
	res, err := c.Get(context.Background(), req, &HeldSink{Out: &out})
	if err != nil || res.Status != http.StatusIMUsed {
		t.Fatalf("status %v, err %v; want the 226 written as it came", res, err)
	}
	vs, err := store.Versions(srv.URL)
	if err != nil || len(vs) != 0 {
		t.Errorf("cached versions %+v (err %v); want none: a 226's body hdig did not rebuild is no version of the URL", vs, err)
	}
}
