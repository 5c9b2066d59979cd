package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// TestZsyncControlWrongDigestFromOrigin: the reference origin's fault
// options reach its control files, so the zsync path is tested against a
// control file whose Repr-Digest (or Content-Digest) is wrong while the
// file's ranges are right: the client must fail with a mismatch and
// leave no output, however good the rebuilt file would be.
func TestZsyncControlWrongDigestFromOrigin(t *testing.T) {
	for _, field := range []string{verify.ReprDigest, verify.ContentDigest} {
		t.Run(field, func(t *testing.T) {
			url, data := controlFaulty(t, field, nil)
			seed := filepath.Join(t.TempDir(), "seed")
			old := append([]byte(nil), data...)
			old[100] ^= 1
			os.WriteFile(seed, old, 0o644)
			// Asked in a header: the control file's request carries the
			// caller's headers.
			req := &Request{URL: url + "/f.zsync", Policy: verify.DefaultPolicy(),
				Header: http.Header{verify.WantContentDigest: {"sha-256=1"}}}
			zsyncRefused(t, req, seed)
		})
	}
}

// controlFaulty serves f (64 KiB) from the reference origin and its
// control file f.zsync from one with WithWrongDigest(field); seen, unless
// nil, sees each request for the control file.
func controlFaulty(t *testing.T, field string, seen func(*http.Request)) (url string, data []byte) {
	t.Helper()
	site := t.TempDir()
	data = genData(64<<10, 3)
	if err := os.WriteFile(filepath.Join(site, "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	clean, err := server.New(site)
	if err != nil {
		t.Fatal(err)
	}
	faulty, err := server.New(site, server.WithWrongDigest(field))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			if seen != nil {
				seen(r)
			}
			faulty.Handler().ServeHTTP(w, r)
			return
		}
		clean.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); clean.Close(); faulty.Close() })
	return ts.URL, data
}

// zsyncRefused runs req with seed and wants a mismatch and no output.
func zsyncRefused(t *testing.T, req *Request, seed string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	c, _ := NewClient(Options{Timeout: testStall})
	_, err := c.Zsync(context.Background(), req, ZsyncOptions{Output: out, Seeds: []string{seed}})
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("control file with a wrong digest: err = %v, want %v", err, ErrMismatch)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written from a control file whose digest did not match")
	}
}

// The control file's request asks for digests as every request of hdig
// get does, from the request's WantRepr and WantContent: a Content-Digest
// the origin sends only when asked is then there to compare, without the
// user's -H Want-Content-Digest. It was asked for only by hand, so a
// wrong one went unseen.
func TestZsyncControlAsksForDigests(t *testing.T) {
	var asked atomic.Value
	url, data := controlFaulty(t, verify.ContentDigest, func(r *http.Request) {
		asked.Store(r.Header.Get(verify.WantContentDigest) + " / " + r.Header.Get(verify.WantReprDigest))
	})
	seed := filepath.Join(t.TempDir(), "seed")
	os.WriteFile(seed, data, 0o644)
	want := []verify.Pref{{Algorithm: "sha-256", Weight: 10}}
	zsyncRefused(t, &Request{URL: url + "/f.zsync", Policy: verify.DefaultPolicy(), WantRepr: want, WantContent: want}, seed)
	if got, _ := asked.Load().(string); got != "sha-256=10 / sha-256=10" {
		t.Errorf("the control file's request carried Want-Content-Digest / Want-Repr-Digest %q, want the request's", got)
	}
}

// A caller's Request with no Header (nil, as a library user leaves it):
// the range requests set If-Range on their own header, which was the nil
// clone of the caller's, and the run panicked once the first range
// response had brought an ETag.
func TestZsyncNilHeaderNoPanic(t *testing.T) {
	site := t.TempDir()
	data := genData(256<<10, 3)
	if err := os.WriteFile(filepath.Join(site, "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(site, server.WithIgnoreRange())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	seed := filepath.Join(t.TempDir(), "seed")
	old := append([]byte(nil), data...)
	for i := 0; i < len(old); i += 20000 {
		old[i] ^= 1
	}
	os.WriteFile(seed, old, 0o644)
	out := filepath.Join(t.TempDir(), "out")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: ts.URL + "/f.zsync", Policy: verify.DefaultPolicy()}
	if _, err := c.Zsync(context.Background(), req, ZsyncOptions{Output: out, Seeds: []string{seed}}); err != nil {
		t.Logf("err = %v", err)
	}
	if got, err := os.ReadFile(out); err == nil && !bytes.Equal(got, data) {
		t.Error("wrong bytes written")
	}
}

// A rebuilt zsync file that cannot be read back to be hashed is the
// output's I/O error (ErrOutput, exit 2), as a download's read-back is
// (lateSums): it was returned bare and exited 1, a mismatch, though no
// digest was compared.
func TestZsyncVerifyReadBackError(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"+PartSuffix))
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 100))
	f.Close() // every read of it now fails
	z := &zsyncRun{base: &Request{Policy: verify.DefaultPolicy()}, ctl: &zsync.Control{Length: 100}}
	if _, err := z.verify(f, &Result{}); !errors.Is(err, ErrOutput) || errors.Is(err, ErrMismatch) {
		t.Fatalf("verify: %v; want ErrOutput, the read back failed", err)
	}
}
