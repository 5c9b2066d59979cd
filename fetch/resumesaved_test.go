package fetch

import (
	"bytes"
	"context"
	"encoding/json"
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

// resumeOrigin serves data with ETag "v1": a 200 carrying repr as its
// Repr-Digest, broken half way until whole is set, and to a range request
// a 206 from the range's start whose header and bytes answer sets.
type resumeOrigin struct {
	srv   *httptest.Server
	gets  atomic.Int32 // 200s served
	whole atomic.Bool
}

func newResumeOrigin(t *testing.T, data []byte, repr string, answer func(h http.Header, part []byte)) *resumeOrigin {
	return newResumeOriginField(t, data, "Repr-Digest", repr, answer)
}

// newResumeOriginField is newResumeOrigin with the 200's digest in field.
func newResumeOriginField(t *testing.T, data []byte, field, value string, answer func(h http.Header, part []byte)) *resumeOrigin {
	o := &resumeOrigin{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set(field, value)
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(200)
			o.gets.Add(1)
			if o.whole.Load() {
				w.Write(data)
			} else {
				w.Write(data[:len(data)/2]) // the connection breaks half way
			}
			return
		}
		var a int
		fmt.Sscanf(rg, "bytes=%d-", &a)
		part := append([]byte{}, data[a:]...)
		answer(w.Header(), part)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(part)))
		w.WriteHeader(206)
		w.Write(part)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// resume runs `-C` into path twice: the first run breaks half way and
// leaves a sidecar; the second resumes it, with whole 200s from then on.
func (o *resumeOrigin) resume(t *testing.T, path string) (*Result, error) {
	return o.resumeReq(t, path, &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy()})
}

// resumeReq is resume with req.
func (o *resumeOrigin) resumeReq(t *testing.T, path string, req *Request) (*Result, error) {
	t.Helper()
	c, _ := NewClient(Options{Timeout: testStall})
	if _, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1}); err == nil {
		t.Fatal("first run: want a truncated body")
	}
	if _, err := os.Stat(path + SidecarSuffix); err != nil {
		t.Fatalf("no sidecar after the broken first run: %v", err)
	}
	o.whole.Store(true)
	o.gets.Store(0)
	return c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
}

// -C: the Repr-Digest the sidecar recorded still proves the resumed whole
// when the resume answer (same ETag) leaves it out: wrong bytes are found
// and the file fetched again in full, never "unverified" (found by review:
// only the resume 206's fields were compared).
func TestResumeKeepsSavedReprDigest(t *testing.T) {
	data := genData(1<<20, 1)
	o := newResumeOrigin(t, data, sha256Field(data), func(h http.Header, part []byte) {
		part[len(part)-1] ^= 0xff // wrong bytes; no Repr-Digest this time
	})
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("precious"), 0o644)
	res, err := o.resume(t, path)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "did not match Repr-Digest") || o.gets.Load() != 1 {
		t.Errorf("resume: %v (outcome %s, warnings %q, %d GETs); want the resumed bytes checked against the recorded Repr-Digest, found wrong and fetched again in full; FILE is the origin's: %v",
			err, res.Outcome(), res.Verdict.Warnings, o.gets.Load(), bytes.Equal(got, data))
	}
}

// A Repr-Digest that is not a valid Dictionary "proves nothing" (verify
// salvage: its members can only fail). On -C the one the sidecar recorded
// keeps that: the resumed whole is no more verified than the same field
// makes a whole 200 (found by a second review).
func TestResumeSavedSalvagedProvesNothing(t *testing.T) {
	data := genData(1<<20, 1)
	o := newResumeOrigin(t, data, sha256Field(data)+", =bad", func(h http.Header, part []byte) {
		h.Set("Repr-Digest", "x-unknown=:AAAA:") // usable, proves nothing
	})
	c, _ := NewClient(Options{Timeout: testStall})
	o.whole.Store(true)
	ref, _ := c.Download(context.Background(), &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy()}, filepath.Join(t.TempDir(), "g"), DownloadOptions{Parallel: 1})
	o.whole.Store(false)
	res, err := o.resume(t, filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome() != ref.Outcome() || ref.Outcome() == verify.Verified {
		t.Errorf("resumed outcome %s, a whole 200 with the same field %s; want the same, not verified: a salvaged Repr-Digest proves nothing", res.Outcome(), ref.Outcome())
	}
}

// A resume answer whose Repr-Digest is present but not usable keeps its
// warning beside the checks of the one the sidecar recorded (found by a
// second review).
func TestResumeKeepsAnswerWarning(t *testing.T) {
	data := genData(1<<20, 1)
	o := newResumeOrigin(t, data, sha256Field(data), func(h http.Header, part []byte) {
		h.Set("Repr-Digest", "=garbage")
	})
	res, err := o.resume(t, filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Verdict.Warnings, "\n"); !strings.Contains(w, "Repr-Digest ignored") || res.Outcome() != verify.Verified {
		t.Errorf("outcome %s, warnings %q; want verified by the recorded Repr-Digest, and the malformed answer's field named as ignored", res.Outcome(), res.Verdict.Warnings)
	}
}

// -C: the Content-Digest of the first 200 is the digest of the whole
// representation's bytes (a 200's content is all of it, content coding
// included), and the resume 206s are of that same representation (the
// sidecar's strong ETag as If-Range). The sidecar records it, and the
// resumed whole is judged against it as the first run's whole would have
// been: before, an origin sending only Content-Digest left every resumed
// download "unverified" (exit 3 under --require-digest), and wrong resumed
// bytes were released as merely unverified.
func TestResumeKeepsSavedContentDigest(t *testing.T) {
	data := genData(1<<20, 1)
	o := newResumeOriginField(t, data, "Content-Digest", sha256Field(data), func(http.Header, []byte) {})
	req := &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy(), RequireDigest: true}
	res, err := o.resumeReq(t, filepath.Join(t.TempDir(), "f"), req)
	if err != nil || res.Outcome() != verify.Verified || o.gets.Load() != 0 {
		t.Fatalf("resume: %v (outcome %s, %d GETs); want verified by the Content-Digest the sidecar recorded", err, res.Outcome(), o.gets.Load())
	}

	bad := newResumeOriginField(t, data, "Content-Digest", sha256Field(data), func(h http.Header, part []byte) {
		part[len(part)-1] ^= 0xff
	})
	path := filepath.Join(t.TempDir(), "f")
	res, err = bad.resume(t, path)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || bad.gets.Load() != 1 {
		t.Errorf("resume of wrong bytes: %v (outcome %s, warnings %q, %d GETs); want them found wrong by the recorded Content-Digest and fetched again in full",
			err, res.Outcome(), res.Verdict.Warnings, bad.gets.Load())
	}
}

// -C: a resume answer whose Content-Range gives another length than the
// sidecar recorded shows the part is not of the version answering (an
// origin that kept its ETag across a change, or a sidecar gone wrong), as
// a 200 or a 416 would: the part is discarded and the file fetched again
// in full, as for them. Before, it ended as a protocol error (exit 5)
// that a full fetch repairs.
func TestResumeOtherLengthFetchesAgain(t *testing.T) {
	data := genData(1<<20, 1)
	o := newResumeOrigin(t, data, sha256Field(data), func(http.Header, []byte) {})
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy()}
	opts := DownloadOptions{Continue: true, Parallel: 1}
	if _, err := c.Download(context.Background(), req, path, opts); err == nil {
		t.Fatal("first run: want a truncated body")
	}
	var sc sidecar
	b, _ := os.ReadFile(path + SidecarSuffix)
	if err := json.Unmarshal(b, &sc); err != nil || sc.Total != int64(len(data)) {
		t.Fatalf("sidecar %s: %v", b, err)
	}
	sc.Total += 10
	b, _ = json.Marshal(sc)
	os.WriteFile(path+SidecarSuffix, b, 0o644)
	o.whole.Store(true)
	res, err := c.Download(context.Background(), req, path, opts)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) || o.gets.Load() != 2 || res.Outcome() != verify.Verified {
		t.Errorf("resume: %v (outcome %s, %d GETs in all); want the part discarded and the file fetched again in full, verified", err, res.Outcome(), o.gets.Load())
	}
}

// -C of a part whose sidecar knows the length but no strong ETag (no If-Range
// can be sent): the rest is asked for from the part's end. A 206 giving
// another length is of another version, so the part's bytes and its
// would be two versions: they were spliced and released (as merely
// unverified without a digest); the length is now compared with the
// sidecar's, as for a resume with an ETag, and the file fetched again in
// full.
func TestResumeLengthOtherTotalFetchesAgain(t *testing.T) {
	v1, v2 := genData(1<<20, 1), genData(1<<20+100, 2)
	var second atomic.Bool
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !second.Load() {
			w.Header().Set("Content-Length", strconv.Itoa(len(v1)))
			w.Write(v1[:len(v1)/2]) // the connection breaks half way
			return
		}
		var a int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &a); err != nil {
			gets.Add(1)
			w.Write(v2)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(v2)-1, len(v2)))
		w.WriteHeader(206)
		w.Write(v2[a:])
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	opts := DownloadOptions{Continue: true, Parallel: 1}
	if _, err := c.Download(context.Background(), req, path, opts); err == nil {
		t.Fatal("first run: want a broken body")
	}
	if b, err := os.ReadFile(path + SidecarSuffix); err != nil || !strings.Contains(string(b), `"total":1048576`) {
		t.Fatalf("sidecar after the broken first run: %s, %v", b, err)
	}
	second.Store(true)
	res, err := c.Download(context.Background(), req, path, opts)
	got, _ := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, v2) || gets.Load() != 1 {
		t.Errorf("resume: %v (outcome %s, warnings %q, %d full GETs); want the 206 of another length refused and the file fetched again in full (FILE is v2: %v)",
			err, res.Outcome(), res.Verdict.Warnings, gets.Load(), bytes.Equal(got, v2))
	}
}
