package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// -C: the Repr-Digest the sidecar recorded still proves the resumed whole
// when the resume answer (same ETag) leaves it out: wrong bytes are found
// and the file fetched again in full, never "unverified" (found by review:
// only the resume 206's fields were compared).
func TestResumeKeepsSavedReprDigest(t *testing.T) {
	data := genData(1<<20, 1)
	var gets atomic.Int32
	var whole atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set("Repr-Digest", sha256Field(data))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(200)
			gets.Add(1)
			if whole.Load() {
				w.Write(data)
			} else {
				w.Write(data[:len(data)/2]) // the connection breaks half way
			}
			return
		}
		var a int
		fmt.Sscanf(rg, "bytes=%d-", &a)
		part := append([]byte{}, data[a:]...)
		part[len(part)-1] ^= 0xff // wrong bytes; no Repr-Digest this time
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(part)))
		w.WriteHeader(206)
		w.Write(part)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("precious"), 0o644)
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1}); err == nil {
		t.Fatal("first run: want a truncated body")
	}
	if _, err := os.Stat(path + SidecarSuffix); err != nil {
		t.Fatalf("no sidecar after the broken first run: %v", err)
	}
	whole.Store(true)
	gets.Store(0)
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "did not match Repr-Digest") || gets.Load() != 1 {
		t.Errorf("resume: %v (outcome %s, warnings %q, %d GETs); want the resumed bytes checked against the recorded Repr-Digest, found wrong and fetched again in full; FILE is the origin's: %v",
			err, res.Outcome(), res.Verdict.Warnings, gets.Load(), bytes.Equal(got, data))
	}
}

// A Repr-Digest that is not a valid Dictionary "proves nothing" (verify
// salvage: its members can only fail). On -C the one the sidecar recorded
// keeps that: the resumed whole is no more verified than the same fields
// make a whole 200 (found by a second review).
func TestResumeSavedSalvagedProvesNothing(t *testing.T) {
	data := genData(1<<20, 1)
	var whole atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			// not a valid Dictionary: salvaged, proves nothing
			w.Header().Set("Repr-Digest", sha256Field(data)+", =bad")
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(200)
			if whole.Load() {
				w.Write(data)
			} else {
				w.Write(data[:len(data)/2])
			}
			return
		}
		var a int
		fmt.Sscanf(rg, "bytes=%d-", &a)
		w.Header().Set("Repr-Digest", "x-unknown=:AAAA:") // usable, proves nothing
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)-a))
		w.WriteHeader(206)
		w.Write(data[a:])
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}

	// Reference: the same salvaged field on a whole 200 does not verify.
	whole.Store(true)
	ref, _ := c.Download(context.Background(), req, filepath.Join(t.TempDir(), "g"), DownloadOptions{Parallel: 1})
	whole.Store(false)
	t.Logf("whole 200 with the salvaged field: outcome %s", ref.Outcome())

	path := filepath.Join(t.TempDir(), "f")
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1}); err == nil {
		t.Fatal("first run: want a truncated body")
	}
	if _, err := os.Stat(path + SidecarSuffix); err != nil {
		t.Fatalf("no sidecar: %v", err)
	}
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range res.Verdict.Checks {
		t.Logf("check %s %s %v %s", ch.Field, ch.Algorithm, ch.Result, ch.Reason)
	}
	if res.Outcome() != ref.Outcome() {
		t.Errorf("resumed outcome %s, but the same fields on a whole 200 give %s: a salvaged (invalid) Repr-Digest from the sidecar became proof", res.Outcome(), ref.Outcome())
	}
}

// A resume answer whose Repr-Digest is present but not usable keeps its
// warning beside the checks of the one the sidecar recorded (found by a
// second review).
func TestResumeKeepsAnswerWarning(t *testing.T) {
	data := genData(1<<20, 1)
	var whole atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set("Repr-Digest", sha256Field(data))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(200)
			if whole.Load() {
				w.Write(data)
			} else {
				w.Write(data[:len(data)/2])
			}
			return
		}
		var a int
		fmt.Sscanf(rg, "bytes=%d-", &a)
		w.Header().Set("Repr-Digest", "=garbage")
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)-a))
		w.WriteHeader(206)
		w.Write(data[a:])
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	path := filepath.Join(t.TempDir(), "f")
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1}); err == nil {
		t.Fatal("first run: want a truncated body")
	}
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range res.Verdict.Warnings {
		t.Logf("warning: %s", w)
		if strings.Contains(w, "Repr-Digest ignored") {
			found = true
		}
	}
	if !found {
		t.Errorf("outcome %s; the resume answer's Repr-Digest was malformed, but no warning says it was ignored ", res.Outcome())
	}
}
