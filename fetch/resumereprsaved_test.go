package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// The Repr-Digest a sidecar records is every member the answers of the
// part's version carried, the first's included: before, it was the last
// answer's only. Here the first 200 sends sha-256, the resume answer of a
// second interrupted run only an algorithm hdig does not know, and the
// third run's answer none: the sha-256 was lost with the second sidecar,
// and a part damaged on disk was released as unverified (exit 0).
func TestResumeSidecarKeepsFirstReprDigest(t *testing.T) {
	data := genData(1<<20, 1)
	sum := sha256.Sum256(data)
	var run, gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		var a int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err != nil {
			gets.Add(1)
			w.Header().Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			if run.Load() == 1 {
				w.Write(data[:len(data)/2]) // the connection breaks half way
				return
			}
			w.Write(data)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)-a))
		if run.Load() == 2 {
			w.Header().Set("Repr-Digest", "x-unknown=:AAAA:")
			w.WriteHeader(206)
			w.Write(data[a : a+1000]) // broken again
			return
		}
		w.WriteHeader(206)
		w.Write(data[a:])
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	opts := DownloadOptions{Continue: true, Parallel: 1}
	for range 2 {
		run.Add(1)
		if _, err := c.Download(context.Background(), req, path, opts); err == nil {
			t.Fatalf("run %d: want a broken body", run.Load())
		}
	}
	f, _ := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
	f.WriteAt([]byte("garbage"), 1000)
	f.Close()
	run.Add(1)
	gets.Store(0)
	res, err := c.Download(context.Background(), req, path, opts)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || gets.Load() != 1 {
		t.Errorf("third run: %v (outcome %s, warnings %q, %d full GETs); want the damaged part found wrong by the first answer's recorded sha-256 and the file fetched again in full (FILE is the origin's: %v)",
			err, res.Outcome(), res.Verdict.Warnings, gets.Load(), bytes.Equal(got, data))
	}
}

// The Repr-Digest a sidecar records stays within what is read back
// (16 KiB, over which a field is ignored): each resume answer's members the
// record lacked were added, so an origin (or a cache before it) sending a
// new member every time grew it run after run until the whole field, the
// first 200's sha-256 with it, was ignored, and a part damaged on disk was
// released as unverified (exit 0). Here three resume answers each carry an
// 8 KiB member of an algorithm hdig does not compute.
func TestResumeSidecarReprDigestStaysReadable(t *testing.T) {
	data := genData(1<<20, 1)
	sum := sha256.Sum256(data)
	var run, gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		var a int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err != nil {
			gets.Add(1)
			w.Header().Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			if run.Load() == 1 {
				w.Write(data[:len(data)/2]) // the connection breaks half way
				return
			}
			w.Write(data)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)-a))
		if n := run.Load(); n <= 4 {
			w.Header().Set("Repr-Digest", fmt.Sprintf("x-run%d=:%s:", n, base64.StdEncoding.EncodeToString(make([]byte, 6<<10))))
			w.WriteHeader(206)
			w.Write(data[a : a+1000]) // broken again
			return
		}
		w.WriteHeader(206)
		w.Write(data[a:])
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	opts := DownloadOptions{Continue: true, Parallel: 1}
	for range 4 {
		run.Add(1)
		if _, err := c.Download(context.Background(), req, path, opts); err == nil {
			t.Fatalf("run %d: want a broken body", run.Load())
		}
	}
	f, _ := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
	f.WriteAt([]byte("garbage"), 1000)
	f.Close()
	run.Add(1)
	gets.Store(0)
	res, err := c.Download(context.Background(), req, path, opts)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || gets.Load() != 1 {
		t.Errorf("last run: %v (outcome %s, warnings %q, %d full GETs); want the damaged part found wrong by the first answer's recorded sha-256 and the file fetched again in full (FILE is the origin's: %v)",
			err, res.Outcome(), res.Verdict.Warnings, gets.Load(), bytes.Equal(got, data))
	}
}

// mergeRepr's record is bounded however often it is merged into, and
// keeps what fails: the first value of each algorithm, a second that
// differs, a wrong-length value still wrong, a malformed field as it came.
func TestMergeReprBounded(t *testing.T) {
	a, b := sha256Field([]byte("a")), sha256Field([]byte("b"))
	sumA := sha256.Sum256([]byte("a"))
	rec := a
	for i := range 50 {
		rec = mergeRepr(rec, fmt.Sprintf("x-%d=:%s:, %s", i, base64.StdEncoding.EncodeToString(make([]byte, 1000)), sha256Field([]byte{byte(i)})))
	}
	f := verify.ParseDigestField(verify.ReprDigest, []string{rec})
	if !f.Usable() || len(f.Digests)+len(f.Shadowed) != 2 || len(rec) > 200 {
		t.Errorf("after 50 merges: %q (%d members); want the first sha-256 and one other", rec, len(f.Digests)+len(f.Shadowed))
	}
	v := verify.Verdict{Checks: verify.Compare(f, []verify.Digest{{Algorithm: "sha-256", Value: sumA[:]}}, verify.DefaultPolicy())}
	if len(v.Mismatches()) == 0 {
		t.Errorf("%q: two values of sha-256 must still fail", rec)
	}
	long := "sha-256=:" + base64.StdEncoding.EncodeToString(make([]byte, 4000)) + ":"
	if rec := mergeRepr(long, b); len(rec) > 200 || !verify.ParseDigestField(verify.ReprDigest, []string{rec}).Usable() {
		t.Errorf("a long value recorded as %.80q", rec)
	}
	bad := a + ", x=@"
	if rec := mergeRepr("", bad); rec != bad {
		t.Errorf("a malformed field recorded as %q, want it as it came", rec)
	}
	if rec := mergeRepr(bad, b); rec != bad {
		t.Errorf("a malformed record merged into as %q, want it as it was", rec)
	}
}

// The Content-Digest a sidecar records is read back: one over the 16 KiB
// a field may have is ignored (it proves nothing), but recorded as it came
// it made the sidecar itself too large to read (1 MiB), and the next -C
// fetched the whole file again. It is recorded only when usable.
func TestResumeSidecarHugeContentDigest(t *testing.T) {
	data := genData(1<<20, 1)
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Repr-Digest", sha256Field(data))
		var a int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err != nil {
			gets.Add(1)
			w.Header().Set("Content-Digest", "x=:"+base64.StdEncoding.EncodeToString(make([]byte, 1<<20))+":")
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data[:len(data)/2]) // the connection breaks half way
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)-a))
		w.WriteHeader(206)
		w.Write(data[a:])
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	opts := DownloadOptions{Continue: true, Parallel: 1}
	if _, err := c.Download(context.Background(), req, path, opts); err == nil {
		t.Fatal("first run: want a broken body")
	}
	res, err := c.Download(context.Background(), req, path, opts)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || gets.Load() != 1 || res.Outcome() != verify.Verified {
		t.Errorf("resume: %v (outcome %s, warnings %q, %d full GETs); want the part resumed", err, res.Outcome(), res.Verdict.Warnings, gets.Load())
	}
}
