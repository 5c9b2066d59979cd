package browsertest_test

import (
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
)

// hdigDictOrigin is hdig serve --dictionary assetMatch (with a history)
// over a directory holding v1 and v2 of the asset.
func hdigDictOrigin(t *testing.T, v1, v2 []byte) *server.Server {
	t.Helper()
	dir, state := t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, assetV1), v1, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, assetV2), v2, 0o644))
	d, err := delta.New(state, 4, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	must(t, err)
	s, err := server.New(dir, server.WithDelta(d), server.WithDictionary(assetMatch))
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestHdigServeDictionaryInBrowser: Chromium stores v1 from hdig serve
// --dictionary (Use-As-Dictionary, fresh for --dictionary-max-age),
// offers it for v2, and hdig serve answers dcb or dcz, which Chromium
// decodes (checking Unencoded-Digest) to v2's bytes.
func TestHdigServeDictionaryInBrowser(t *testing.T) {
	v1, v2 := jsVersions()
	proveDictionary(t, hdigDictOrigin(t, v1, v2).Handler(), v1, v2, "")
}

// TestHdigServeDictionaryDCZInBrowser: the same, with dcb taken out of
// the Accept-Encoding Chromium sends (hdig serve prefers the smaller of
// equally welcome codings, which is dcb here): hdig serve answers dcz and
// Chromium decodes it to v2.
func TestHdigServeDictionaryDCZInBrowser(t *testing.T) {
	v1, v2 := jsVersions()
	h := hdigDictOrigin(t, v1, v2).Handler()
	noDCB := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var keep []string
		for _, c := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
			if strings.TrimSpace(c) != "dcb" {
				keep = append(keep, strings.TrimSpace(c))
			}
		}
		r.Header.Set("Accept-Encoding", strings.Join(keep, ", "))
		h.ServeHTTP(w, r)
	})
	proveDictionary(t, noDCB, v1, v2, "dcz")
}
