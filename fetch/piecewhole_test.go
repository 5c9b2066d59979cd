package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hdig/hdig/verify"
)

// piecedOrigin serves data under a strong ETag with its Repr-Digest and
// the fields of all: whole to a request without Range, else a 206 for
// bytes=a-b whose header also has the fields of piece, with a Content-
// Length, or, given trailer fields, no length and those fields declared
// and sent in its trailer.
func piecedOrigin(t *testing.T, data []byte, all, piece, trailer http.Header) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("ETag", `"v1"`)
		h.Set("Accept-Ranges", "bytes")
		h.Set("Repr-Digest", sha256Field(data))
		for k, vs := range all {
			h[k] = vs
		}
		rg := r.Header.Get("Range")
		if rg == "" {
			h.Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data)
			return
		}
		var a, b int
		fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
		for k, vs := range piece {
			h[k] = vs
		}
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
		for k := range trailer {
			h.Add("Trailer", k)
		}
		if len(trailer) == 0 {
			h.Set("Content-Length", strconv.Itoa(b+1-a))
		}
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[a : b+1])
		for k, vs := range trailer {
			h[k] = vs
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The fields of a piece's 206 that speak for the whole representation
// but Repr-Digest (the obsolete Digest, x-amz-checksum-*, x-goog-hash,
// Unencoded-Digest), in its header or its trailer, are compared with the
// whole file as a single 200's are: a wrong one passed beside the first
// 200's right Repr-Digest (exit 0, "verified"), read by nothing; only a
// trailer's Repr-Digest was read. A piece's Content-MD5 in the trailer
// (of the piece's bytes) was checked already and stays so.
func TestPieceWholeFieldsCompared(t *testing.T) {
	data, other := genData(1<<20, 1), genData(1<<20, 2)
	sum := sha256.Sum256(other)
	wrong := base64.StdEncoding.EncodeToString(sum[:])
	fields := map[string]string{
		"Digest":                "SHA-256=" + wrong,
		"X-Amz-Checksum-Sha256": wrong,
		"Unencoded-Digest":      "sha-256=:" + wrong + ":",
		"Content-Md5":           "1B2M2Y8AsgTpgAmY7PhCfg==",
	}
	for name, v := range fields {
		for _, where := range []string{"header", "trailer"} {
			if name == "Content-Md5" && where == "header" {
				continue // a piece's own digest in its header: a piece mismatch, refetched
			}
			t.Run(name+" in the "+where, func(t *testing.T) {
				f := http.Header{name: {v}}
				piece, trailer := f, http.Header(nil)
				if where == "trailer" {
					piece, trailer = nil, f
				}
				srv := piecedOrigin(t, data, nil, piece, trailer)
				c, _ := NewClient(Options{Timeout: testStall})
				req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
				res, err := c.Download(context.Background(), req, filepath.Join(t.TempDir(), "f"), DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
				if !errors.Is(err, ErrMismatch) {
					t.Fatalf("Download: %v (pieces %d, checks %v); want ErrMismatch: the pieces' %s is not the file's", err, res.Pieces, res.Verdict.Checks, name)
				}
			})
		}
	}
}

// A piece's Unencoded-Digest is judged by its own rule (unencodedChecks),
// not as a digest of the bytes received: of a gzip representation it
// covers the decoded bytes, which a download without --compressed does
// not have, and is not compared (no false mismatch).
func TestPieceUnencodedDigestCoded(t *testing.T) {
	data, decoded := genData(1<<20, 1), genData(1<<20, 2)
	srv := piecedOrigin(t, data,
		http.Header{"Content-Encoding": {"gzip"}}, // labelled so; never decoded here
		http.Header{"Unencoded-Digest": {sha256Field(decoded)}}, nil)
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	res, err := c.Download(context.Background(), req, filepath.Join(t.TempDir(), "f"), DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
	if err != nil || res.Pieces < 2 || res.Outcome() != verify.Verified {
		t.Fatalf("Download: %v (pieces %d, outcome %s, checks %v); want verified by Repr-Digest, the Unencoded-Digest of the decoded bytes not compared with the gzip bytes", err, res.Pieces, res.Outcome(), res.Verdict.Checks)
	}
}
