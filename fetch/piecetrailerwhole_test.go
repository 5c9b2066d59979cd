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

// The fields of the whole representation in a piece's trailer other than
// Repr-Digest (the obsolete Digest, x-goog-hash, x-amz-checksum-*) are
// compared with the whole file as the same fields in a piece's header
// are: only the trailer's Repr-Digest was read, and a wrong Digest or
// x-amz-checksum-sha256 there passed beside the 200's right Repr-Digest
// (exit 0, "verified"), where on a single 200's trailer it fails.
func TestPieceTrailerWholeFieldsCompared(t *testing.T) {
	data, other := genData(1<<20, 1), genData(1<<20, 2)
	sum := sha256.Sum256(other)
	wrong := base64.StdEncoding.EncodeToString(sum[:])
	for name, field := range map[string][2]string{
		"Digest":                {"Digest", "SHA-256=" + wrong},
		"x-amz-checksum-sha256": {"x-amz-checksum-sha256", wrong},
		"Content-MD5":           {"Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="},
		"Unencoded-Digest":      {"Unencoded-Digest", "sha-256=:" + wrong + ":"},
	} {
		t.Run(name, func(t *testing.T) {
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
				w.Header().Set("Trailer", field[0])
				w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
				w.WriteHeader(http.StatusPartialContent)
				w.Write(data[a : b+1])
				w.Header().Set(field[0], field[1])
			}))
			defer srv.Close()
			c, _ := NewClient(Options{Timeout: testStall})
			path := filepath.Join(t.TempDir(), "f")
			req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
			res, err := c.Download(context.Background(), req, path, DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("Download: %v (pieces %d, checks %v); want ErrMismatch: the pieces' trailer %s is not the file's", err, res.Pieces, res.Verdict.Checks, name)
			}
		})
	}
}

// A piece's Unencoded-Digest is judged by its own rule (unencodedChecks),
// not as a digest of the bytes received: of a gzip representation it
// covers the decoded bytes, which a download without --compressed does
// not have, and is not compared (no false mismatch).
func TestPieceUnencodedDigestCoded(t *testing.T) {
	data, decoded := genData(1<<20, 1), genData(1<<20, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Content-Encoding", "gzip") // labelled so; never decoded here
		w.Header().Set("Repr-Digest", sha256Field(data))
		rg := r.Header.Get("Range")
		if rg == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data)
			return
		}
		var a, b int
		fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
		w.Header().Set("Unencoded-Digest", sha256Field(decoded))
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(b+1-a))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[a : b+1])
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
	res, err := c.Download(context.Background(), req, filepath.Join(t.TempDir(), "f"), DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
	if err != nil || res.Pieces < 2 || res.Outcome() != verify.Verified {
		t.Fatalf("Download: %v (pieces %d, outcome %s, checks %v); want verified by Repr-Digest, the Unencoded-Digest of the decoded bytes not compared with the gzip bytes", err, res.Pieces, res.Outcome(), res.Verdict.Checks)
	}
}
