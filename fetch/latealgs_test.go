package fetch

import (
	"context"
	"crypto/sha512"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hdig/hdig/verify"
)

// sha512Field is the Repr-Digest value of b with sha-512.
func sha512Field(b []byte) string {
	s := sha512.Sum512(b)
	return verify.FormatDigests([]verify.Digest{{Algorithm: "sha-512", Value: s[:]}})
}

// A piece's Repr-Digest covers the whole representation (RFC 9530 §3)
// whatever algorithms it names: a member of an algorithm the first
// answer's field (or an earlier piece's) did not name is compared with
// the whole file too. It was compared with nothing (reprDiffers looks at
// the algorithms both fields name), and a wrong sha-512 on the pieces
// passed beside a right sha-256: exit 0, "verified". With the first 200
// carrying no Repr-Digest, which piece's field was adopted depended on
// which answer came first.
func TestPieceReprDigestOtherAlgorithm(t *testing.T) {
	data, other := genData(1<<20, 1), genData(1<<20, 2)
	for _, tc := range []struct {
		name  string
		first string // the 200's Repr-Digest
		piece func(first int) string
	}{
		{"first 200 names sha-256", sha256Field(data), func(int) string { return sha256Field(data) + ", " + sha512Field(other) }},
		{"pieces name one each", "", func(first int) string {
			if first >= 768<<10 {
				return sha512Field(other)
			}
			return sha256Field(data)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("ETag", `"v1"`)
				w.Header().Set("Accept-Ranges", "bytes")
				rg := r.Header.Get("Range")
				if rg == "" {
					if tc.first != "" {
						w.Header().Set("Repr-Digest", tc.first)
					}
					w.Header().Set("Content-Length", strconv.Itoa(len(data)))
					w.Write(data)
					return
				}
				var a, b int
				fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
				w.Header().Set("Repr-Digest", tc.piece(a))
				w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
				w.Header().Set("Content-Length", strconv.Itoa(b+1-a))
				w.WriteHeader(http.StatusPartialContent)
				w.Write(data[a : b+1])
			}))
			defer srv.Close()
			c, _ := NewClient(Options{Timeout: testStall})
			path := filepath.Join(t.TempDir(), "f")
			os.WriteFile(path, []byte("precious"), 0o644)
			req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}
			res, err := c.Download(context.Background(), req, path, DownloadOptions{Parallel: 2, PieceSize: 256 << 10})
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("Download: %v (pieces %d, checks %v); want ErrMismatch: the pieces' sha-512 is not the file's", err, res.Pieces, res.Verdict.Checks)
			}
			assertFileBytes(t, path, []byte("precious"))
		})
	}
}
