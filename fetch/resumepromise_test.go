package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestContinueUnnamedPartPromiseKept: a part whose version nothing names
// is spliced with a resume answer only because something will prove the
// whole (492f8db). When that proof does not come (a Repr-Digest announced
// in Trailer and never sent, or one of an algorithm hdig cannot compute),
// the splice was released "unverified", exit 0: two versions in one file.
// The whole is fetched again instead.
func TestContinueUnnamedPartPromiseKept(t *testing.T) {
	old, data := genData(4000, 1), genData(4000, 2)
	for name, answer := range map[string]func(h http.Header){
		"trailer never sent": func(h http.Header) { h.Set("Trailer", "Repr-Digest") },
		"unknown algorithm":  func(h http.Header) { h.Set("Repr-Digest", "x-unknown=:AAAA:") },
	} {
		t.Run(name, func(t *testing.T) {
			res, got, err := continueUnnamed(t, old, data, answer)
			if err == nil && string(got) != string(data) {
				t.Fatalf("exit 0 (outcome %s, warnings %q) with the old version's first 1000 bytes spliced: %v", res.Outcome(), res.Verdict.Warnings, string(got[:1000]) == string(old[:1000]))
			}
		})
	}
}

// TestContinueUnnamedNoProofNotRead: a resume answer whose digests cannot
// prove the whole (a Repr-Digest of an algorithm hdig does not compute, a
// Content-Digest trailer covering the 206's range only) is no reason to
// splice a part whose version nothing names: the 206 was read to its end
// and the whole then fetched again (TestContinueUnnamedPartPromiseKept).
// It is closed unread, the whole fetched at once.
func TestContinueUnnamedNoProofNotRead(t *testing.T) {
	old, data := genData(4000, 1), genData(4000, 2)
	for name, answer := range map[string]func(h http.Header){
		"unknown algorithm":       func(h http.Header) { h.Set("Repr-Digest", "x-unknown=:AAAA:") },
		"Content-Digest trailer":  func(h http.Header) { h.Set("Trailer", "Content-Digest") },
		"unknown obsolete Digest": func(h http.Header) { h.Set("Digest", "x-unknown=AAAA") },
	} {
		t.Run(name, func(t *testing.T) {
			res, got, err := continueUnnamed(t, old, data, answer)
			if err != nil || string(got) != string(data) {
				t.Fatalf("%v: FILE the origin's file: %v", err, string(got) == string(data))
			}
			if !slices.ContainsFunc(res.Verdict.Warnings, func(w string) bool { return strings.Contains(w, "nothing proves the whole (no digest hdig can check)") }) {
				t.Errorf("warnings %q: want the 206 closed unread (nothing proves the whole), not spliced first", res.Verdict.Warnings)
			}
		})
	}
}

// continueUnnamed resumes with -C a part of old's first 1000 bytes that
// nothing names (no sidecar) from an origin whose file is data, sent with
// no validator and no digest, and whose 206 to a Range gets answer's
// fields; it returns the result, what FILE holds after, and the error.
func continueUnnamed(t *testing.T, old, data []byte, answer func(h http.Header)) (*Result, []byte, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err != nil {
			w.Write(data) // no validator, no digest
			return
		}
		answer(w.Header())
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[a:])
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path+PartSuffix, old[:1000], 0o644)
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true})
	got, _ := os.ReadFile(path)
	return res, got, err
}
