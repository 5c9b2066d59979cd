package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// TestZsyncOtherOriginGetsNoHeaderFields: the control file a file's Link
// names and the target a control file's URL: line names are the origin's
// choice, as its Link mirrors are: on another origin they get none of the
// user's -H fields (any may carry a key), only User-Agent, as a mirror
// does (mirrorHeader); the user's origin gets them all.
func TestZsyncOtherOriginGetsNoHeaderFields(t *testing.T) {
	body := genData(8<<10, 3)
	sum := sha256.Sum256(body)
	var mu sync.Mutex
	seen := map[string][]http.Header{} // by server
	serve := func(name string, h http.HandlerFunc) *httptest.Server {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[name] = append(seen[name], r.Header.Clone())
			mu.Unlock()
			h(w, r)
		}))
		t.Cleanup(ts.Close)
		return ts
	}
	file := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
	}
	control := func(target string) []byte {
		ctl, err := zsync.Make(bytes.NewReader(body), int64(len(body)), zsync.MakeOptions{URL: target})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		ctl.WriteTo(&buf)
		return buf.Bytes()
	}
	// URL: line: the user names the control file, another origin the file.
	target := serve("url-target", file)
	ctlURL := control(target.URL + "/f")
	named := serve("url-control", func(w http.ResponseWriter, r *http.Request) { w.Write(ctlURL) })
	// Link: the user names the file, its Link a control file elsewhere.
	ctlLink := control("f")
	away := serve("link-control", func(w http.ResponseWriter, r *http.Request) { w.Write(ctlLink) })
	origin := serve("link-origin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "<"+away.URL+`/f.zsync>; rel="describedby"; type="application/x-zsync"`)
		file(w, r)
	})
	for _, u := range []string{named.URL + "/f.zsync", origin.URL + "/f"} {
		c, _ := NewClient(Options{Timeout: testStall})
		req := &Request{URL: u, Policy: verify.DefaultPolicy(), Header: http.Header{
			"Authorization": {"Bearer s3cret"}, "X-Api-Key": {"s3cret"}, "User-Agent": {"hdig-test"}}}
		if _, err := c.Zsync(context.Background(), req, ZsyncOptions{Output: filepath.Join(t.TempDir(), "f")}); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
	}
	for name, hs := range seen {
		own := strings.HasPrefix(name, "url-control") || name == "link-origin"
		for _, h := range hs {
			if own && h.Get("X-Api-Key") != "s3cret" {
				t.Errorf("%s (the user's origin) got no X-Api-Key", name)
			}
			if !own && (h.Get("X-Api-Key") != "" || h.Get("Authorization") != "") {
				t.Errorf("%s (another origin) got X-Api-Key %q, Authorization %q", name, h.Get("X-Api-Key"), h.Get("Authorization"))
			}
			if h.Get("User-Agent") != "hdig-test" {
				t.Errorf("%s got User-Agent %q, want the user's", name, h.Get("User-Agent"))
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("servers asked: %d, want 4", len(seen))
	}
}
