package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// TestPiecesUseCRC32C fetches from the reference origin: range pieces ask
// for a CRC-32C Content-Digest, a flipped byte in a piece is caught by it,
// and a clean download is still proven by the sha-256 Repr-Digest.
func TestPiecesUseCRC32C(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []server.Option
		want error
	}{
		{"clean", nil, nil},
		{"flipped byte in a piece", []server.Option{server.WithFlippedByte(pieceTestSize - 1000)}, ErrMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := t.TempDir()
			data := genData(pieceTestSize, 1)
			os.WriteFile(filepath.Join(site, "f"), data, 0o644)
			srv, err := server.New(site, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var mu sync.Mutex
			var pieceWants []string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Range") != "" {
					mu.Lock()
					pieceWants = append(pieceWants, r.Header.Get(verify.WantContentDigest))
					mu.Unlock()
				}
				srv.Handler().ServeHTTP(w, r)
			}))
			defer ts.Close()
			c, _ := NewClient(Options{Timeout: testStall})
			req := &Request{URL: ts.URL + "/f", Policy: verify.DefaultPolicy(),
				WantRepr: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}, WantContent: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}}
			path := filepath.Join(t.TempDir(), "f")
			res, err := c.Download(context.Background(), req, path, pieceOpts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			// A piece request cut short by the mismatch may still be in
			// the handler: read the list under its lock.
			mu.Lock()
			wants := slices.Clone(pieceWants)
			mu.Unlock()
			if len(wants) == 0 {
				t.Fatal("no range pieces were asked for")
			}
			for _, w := range wants {
				if w != "crc32c=10, sha-256=5" {
					t.Errorf("piece Want-Content-Digest = %q", w)
				}
			}
			if tc.want == nil {
				assertFileBytes(t, path, data)
				if !res.Verdict.Verified(verify.ReprDigest) {
					t.Errorf("verdict %v: want Repr-Digest verified", res.Verdict.Checks)
				}
				return
			}
			bad := res.Verdict.Mismatches()
			if len(bad) != 1 || bad[0].Algorithm != "crc32c" || !strings.Contains(bad[0].Reason, "piece") {
				t.Errorf("mismatches %v, want the piece's crc32c", bad)
			}
			assertAbsent(t, path, path+PartSuffix)
		})
	}
}
