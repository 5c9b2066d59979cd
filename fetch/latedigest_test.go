package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// lateOrigin answers a plain GET with a 200 that carries no Repr-Digest
// and each range with a 206 whose Repr-Digest is repr(first byte): an
// origin (or a cache in front of it) that adds the field to partial
// content only.
func lateOrigin(data []byte, repr func(first int) string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data)
			return
		}
		var a, b int
		fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
		w.Header().Set("Repr-Digest", repr(a))
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(b+1-a))
		w.WriteHeader(206)
		w.Write(data[a : b+1])
	}))
}

// A Repr-Digest that arrives only on the pieces (the first 200 had none)
// is the origin's proof of the whole all the same (RFC 9530 §3: it covers
// the selected representation, whatever part a message carries). It is
// compared with the whole file, hashed again if its algorithm was not
// computed while the pieces landed; it was ignored, and a wrong one ended
// "unverified" with exit 0. Pieces that disagree on it are of two
// versions under one ETag, as a piece disagreeing with the first
// response's is (versionDiffers): the file is fetched again as one stream,
// judged by what that answer carries (here nothing: unverified, and said).
func TestPieceReprDigestLate(t *testing.T) {
	data := genData(1<<20, 1)
	other := genData(1<<20, 2)
	for _, tc := range []struct {
		name string
		repr func(first int) string
		want func(error) bool
		kept bool // the existing file is left as it was
	}{
		{"right", func(int) string { return sha256Field(data) }, func(err error) bool { return err == nil }, false},
		{"wrong", func(int) string { return sha256Field(other) }, func(err error) bool { return errors.Is(err, ErrMismatch) }, true},
		{"pieces disagree", func(first int) string {
			if first >= 512<<10 {
				return sha256Field(other)
			}
			return sha256Field(data)
		}, func(err error) bool { return err == nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := lateOrigin(data, tc.repr)
			defer srv.Close()
			c, _ := NewClient(Options{Timeout: testStall})
			path := filepath.Join(t.TempDir(), "f")
			os.WriteFile(path, []byte("precious"), 0o644)
			req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()} // no cache: sha-256 is not computed ahead
			res, err := c.Download(context.Background(), req, path, DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
			if !tc.want(err) {
				t.Fatalf("Download: %v (pieces %d, checks %v)", err, res.Pieces, res.Verdict.Checks)
			}
			if tc.kept {
				assertFileBytes(t, path, []byte("precious"))
				return
			}
			assertFileBytes(t, path, data)
			if tc.name == "pieces disagree" {
				if res.Outcome() != verify.Unverified || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "restarted as one stream") {
					t.Errorf("outcome %s, warnings %q; want the file fetched again as one stream", res.Outcome(), res.Verdict.Warnings)
				}
				return
			}
			if !res.Verdict.Verified(verify.ReprDigest) {
				t.Errorf("checks %v, warnings %v; want Repr-Digest verified by the pieces' field", res.Verdict.Checks, res.Verdict.Warnings)
			}
		})
	}
}

// A digest computed over the finished file by reading it back (lateSums:
// the user's --expect here, its algorithm not hashed while the file
// landed) whose read fails is an I/O error of the output, as a failed
// read-back of the prefix hash is (ErrOutput, exit 2): it was a warning,
// the expected digest "not computed", and the download succeeded (exit 0)
// with the user's digest never compared.
func TestLateSumsReadBackError(t *testing.T) {
	data := genData(64<<10, 1)
	part := filepath.Join(t.TempDir(), "f"+PartSuffix)
	f, err := os.Create(part)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data)
	f.Close() // every read of it now fails
	sha256Alg, _ := verify.Find("sha-256")
	h := verify.NewHasher([]verify.Algorithm{sha256Alg})
	h.Write(data)
	d := &download{req: &Request{Policy: verify.DefaultPolicy(), Expected: []verify.DigestField{expectField(data, false)}},
		part: part, f: f, total: int64(len(data)), refStatus: http.StatusOK, hasher: h}
	d.ph = newPrefixHash(bytes.NewReader(data), h, int64(len(data)), nil) // hashed as it landed
	res, err := d.conclude()
	if !errors.Is(err, ErrOutput) {
		t.Fatalf("conclude: %v (checks %v, warnings %v); want ErrOutput, the read back failed", err, res.Verdict.Checks, res.Verdict.Warnings)
	}
}

// A piece's trailer carrying a Repr-Digest another than the first 200's
// under the same ETag is another version, as the same value in its header
// is (versionDiffers): the file is fetched again as one stream and
// verified. It was a protocol error (exit 5).
func TestPieceTrailerReprDigestChanges(t *testing.T) {
	data, other := genData(1<<20, 1), genData(1<<20, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set("Repr-Digest", sha256Field(data))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data)
			return
		}
		var a, b int
		fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
		w.Header().Set("Trailer", "Repr-Digest")
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
		w.WriteHeader(206)
		w.Write(data[a : b+1])
		w.Header().Set("Repr-Digest", sha256Field(other))
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	res, err := c.Download(context.Background(), req, path, DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
	if err != nil {
		t.Fatalf("Download: %v; want the file fetched again as one stream", err)
	}
	assertFileBytes(t, path, data)
	if res.Outcome() != verify.Verified || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "restarted as one stream") {
		t.Errorf("outcome %s, warnings %q; want verified after a restart", res.Outcome(), res.Verdict.Warnings)
	}
}
