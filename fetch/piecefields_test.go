package fetch

import (
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

// A corrupt range piece whose own digest says so is a mismatch, never
// spliced in as "unverified", whatever field names the digest (found by
// review): a Content-Digest in an algorithm outside the piece policy (md5,
// which hdig computes: the algorithms were filtered by the policy), and a
// Content-MD5 (RFC 1864, over this message's content, as on a 200:
// verifyPiece looked at Content-Digest only).
func TestPieceDigestAnyField(t *testing.T) {
	data := genData(1<<20, 1)
	for _, tc := range []struct {
		field string
		value func(part []byte) string
	}{
		{"Content-Digest", func(part []byte) string { return "md5=:" + b64Of("md5", part) + ":" }},
		{"Content-MD5", func(part []byte) string { return b64Of("md5", part) }},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Accept-Ranges", "bytes")
			rg := r.Header.Get("Range")
			if rg == "" {
				w.Header().Set("Content-Length", strconv.Itoa(len(data)))
				w.WriteHeader(200)
				w.Write(data)
				return
			}
			var a, b int
			fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
			part := append([]byte{}, data[a:b+1]...)
			w.Header().Set(tc.field, tc.value(part))
			part[0] ^= 0xff // corrupted in transit / by a hostile cache
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
			w.Header().Set("Content-Length", strconv.Itoa(len(part)))
			w.WriteHeader(206)
			w.Write(part)
		}))
		c, _ := NewClient(Options{Timeout: testStall})
		path := filepath.Join(t.TempDir(), "f")
		os.WriteFile(path, []byte("precious"), 0o644)
		req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
		res, err := c.Download(context.Background(), req, path, DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
		if !errors.Is(err, ErrMismatch) {
			t.Errorf("%s: Download: %v (pieces %d, checks %v); want ErrMismatch: the pieces' md5 does not match", tc.field, err, res.Pieces, res.Verdict.Checks)
		}
		assertFileBytes(t, path, []byte("precious"))
		srv.Close()
	}
}

// A piece with no Content-Digest or Content-MD5 (in its header or
// declared in Trailer) costs no hashing, over HTTP/2 too, where a trailer
// nobody declared is possible (found by a second review).
func TestPieceWithoutDigestNotHashed(t *testing.T) {
	req, _ := http.NewRequest("GET", "https://example.test/f", nil)
	resp := &http.Response{StatusCode: 206, ProtoMajor: 2, Header: http.Header{"Content-Range": {"bytes 0-99/1000"}}, Request: req}
	d := &download{req: &Request{Policy: verify.DefaultPolicy()}}
	if algs := d.pieceAlgorithms(resp); len(algs) > 0 {
		var keys []string
		for _, a := range algs {
			keys = append(keys, a.Key)
		}
		t.Errorf("a piece with no digest field over HTTP/2 is hashed with %v ", keys)
	}
}

// A digest in a piece's trailer nobody declared is not hashed for ahead:
// it is named in a warning as not computed, never silently dropped.
func TestPieceUndeclaredTrailerNamed(t *testing.T) {
	data := genData(1<<20, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Repr-Digest", sha256Field(data))
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data)
			return
		}
		var a, b int
		fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
		w.WriteHeader(206) // chunked: no Content-Length
		w.Write(data[a : b+1])
		w.Header().Set(http.TrailerPrefix+"Content-Digest", "md5=:"+b64Of("md5", []byte("other bytes"))+":")
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	res, err := c.Download(context.Background(), &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}, path, DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
	if err != nil || res.Pieces < 2 {
		t.Fatalf("Download: %v, %d pieces", err, res.Pieces)
	}
	if w := strings.Join(res.Verdict.Warnings, "\n"); !strings.Contains(w, "Content-Digest md5 in an undeclared trailer not computed") {
		t.Errorf("warnings %q, want the pieces' undeclared md5 named", res.Verdict.Warnings)
	}
}
