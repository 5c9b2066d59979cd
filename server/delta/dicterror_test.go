package delta

import (
	"net/http"
	"testing"
)

// Use-As-Dictionary and the freshness sent with it (Cache-Control:
// max-age) belong to responses that carry the representation: a 412 or a
// 416 offered its error text as a dictionary, and its max-age let a
// shared cache keep the error for an hour and serve it for the URL (a
// cache-poisoned denial of service, from one request with a Range past
// the end or an If-Match that fails). A 406 of the delta step neither.
func TestErrorStatusNotOfferedAsDictionary(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	writeAsset(t, dir, text(3000, 1))
	url, stop := dictOrigin(t, dir, state)
	defer stop()
	url += "/assets/app.txt"
	ok, _ := getWith(t, url)
	if ok.Header.Get("Use-As-Dictionary") == "" || ok.Header.Get("Cache-Control") == "" {
		t.Fatalf("200: Use-As-Dictionary %q, Cache-Control %q", ok.Header.Get("Use-As-Dictionary"), ok.Header.Get("Cache-Control"))
	}
	for _, hdr := range [][]string{
		{"Range", "bytes=99999-"},
		{"If-Match", `"other"`},
		{"A-IM", "vcdiff, identity;q=0", "If-None-Match", `"sha256-unknown"`},
	} {
		resp, _ := getWith(t, url, hdr...)
		if resp.StatusCode < 400 {
			t.Fatalf("%v: status %d, want an error", hdr, resp.StatusCode)
		}
		if u, cc := resp.Header.Get("Use-As-Dictionary"), resp.Header.Get("Cache-Control"); u != "" || cc != "" {
			t.Errorf("%v: %d with Use-As-Dictionary %q, Cache-Control %q", hdr, resp.StatusCode, u, cc)
		}
	}
	if r, _ := getWith(t, url, "If-None-Match", ok.Header.Get("ETag")); r.StatusCode != http.StatusNotModified || r.Header.Get("Cache-Control") == "" {
		t.Errorf("304: status %d, Cache-Control %q; want the freshness refreshed", r.StatusCode, r.Header.Get("Cache-Control"))
	}
}
