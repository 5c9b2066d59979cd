package cmd

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// The cache holds bytes no signature
// ever proved (here: fetched without --trust-key from a path that served
// other bytes under the ETag). The origin answers the conditional request
// with a 304 whose only digest is the Content-Digest of empty content
// (RFC 9530 B.2), signed. That digest proves nothing about the cached
// bytes, so they must not be reported authentic (found by review: it was
// credited as a signed Content-Digest of full content).
func TestGetTrust304EmptyContentDigestProvesNothing(t *testing.T) {
	keys := signKeys(t)
	signer := originSigner(t, keys)
	evil := "evil bytes never signed\n"
	empty := verify.FormatDigests(verify.EmptyDigests([]verify.Algorithm{mustAlg(t, "sha-256")}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == "" {
			w.Write([]byte(evil)) // unsigned, no digest
			return
		}
		h.Set("Content-Digest", empty)
		cs, _ := httpsig.ParseComponents([]string{"@status", "content-digest"})
		p := httpsig.Params{Components: cs, Created: time.Now().Truncate(time.Second), KeyID: "origin"}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 304, Header: h}, nil), "sig1", p, signer); err != nil {
			t.Error(err)
		}
		w.WriteHeader(http.StatusNotModified)
	}))
	defer srv.Close()
	cacheDir := t.TempDir()
	out := filepath.Join(t.TempDir(), "f")
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, srv.URL+"/f"); code != 3 && code != 0 {
		t.Fatalf("fill the cache: exit %d: %s", code, errOut)
	}
	out2 := filepath.Join(t.TempDir(), "f")
	code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "--trust-key", filepath.Join(keys, "origin.pem.pub"), "-o", out2, srv.URL+"/f")
	t.Logf("exit %d, verdict %s, status %d, strategy %s: %s", code, v.Verdict, v.Status, v.Transfer.Strategy, errOut)
	if code == 0 || v.Verdict == "authentic" || strings.Contains(errOut, "✔ authentic") {
		t.Errorf("cached bytes proved by the empty Content-Digest of a 304: exit %d, verdict %s, status %d: %s", code, v.Verdict, v.Status, errOut)
	}
}
