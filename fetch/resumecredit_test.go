package fetch

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// -C --trust-key: the Content-Digest a sidecar recorded came from the
// first run's 200, which no signature covered (here another's bytes and
// the digest of them); the resume 206 is signed over its own
// Content-Digest, the digest of its piece. The recorded digest matching
// the whole is no signed field's match: the trusted key vouched for the
// piece only, so the whole is not authentic (found by review: the saved
// digest was put in the resume answer's place and credited to its
// signature).
func TestResumeSavedContentDigestNotCreditedToSignature(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	data := genData(1<<20, 1)
	evil := append([]byte{}, data...)
	evil[10] ^= 0xff // in the first half, which only the unsigned 200 brought
	var whole atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("ETag", `"v1"`)
		h.Set("Accept-Ranges", "bytes")
		var a int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err != nil {
			h.Set("Content-Digest", sha256Field(evil))
			h.Set("Content-Length", strconv.Itoa(len(evil)))
			w.WriteHeader(200)
			w.Write(evil[:len(evil)/2]) // the connection breaks half way
			return
		}
		part := data[a:]
		h.Set("Content-Digest", sha256Field(part))
		s, _ := httpsig.NewSigner("", k)
		cs, _ := httpsig.ParseComponents([]string{"content-digest"})
		p := httpsig.Params{Components: cs, Created: sigT0, KeyID: "o"}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 206, Header: h}, nil), "s", p, s); err != nil {
			t.Error(err)
		}
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		h.Set("Content-Length", strconv.Itoa(len(part)))
		// Before the body: once its last byte is written the client may
		// finish before this handler runs on (a flake, 3 in 20 under load).
		whole.Store(true)
		w.WriteHeader(206)
		w.Write(part)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Trust: trustOf(t, "o", k, sigT0)}
	opts := DownloadOptions{Continue: true, Parallel: 1}
	if _, err := c.Download(context.Background(), req, path, opts); err == nil {
		t.Fatal("first run: want a truncated body")
	}
	res, err := c.Download(context.Background(), req, path, opts)
	if !whole.Load() {
		t.Fatalf("no resume 206 was served: %v", err)
	}
	if !errors.Is(err, ErrUnsigned) || len(res.Authentic) > 0 {
		t.Errorf("resume: %v, authentic %v; want ErrUnsigned: the trusted key signed the 206's piece only. checks: %v", err, res.Authentic, res.Verdict.Checks)
	}
}
