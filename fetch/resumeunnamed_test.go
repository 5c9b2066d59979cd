package fetch

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContinueUnnamedPartNotSpliced: a part whose version nothing names
// (no sidecar; or one recording no ETag and no Last-Modified), resumed
// from an origin that sends neither validators nor digests, is of another
// version for all hdig knows: its bytes are not spliced with the new
// version's (nothing would find it), the whole is fetched again.
func TestContinueUnnamedPartNotSpliced(t *testing.T) {
	for _, withSidecar := range []bool{false, true} {
		o := newTestOrigin(t, 4000)
		old, _ := o.current()
		o.setVersion(4000, 2)
		data, _ := o.current()
		o.set(func() {
			o.tamper = func(r *http.Request, status int, h http.Header, body []byte) (int, []byte) {
				h.Del("Repr-Digest")
				h.Del("Content-Digest")
				h.Del("ETag")
				return status, body
			}
		})
		path := filepath.Join(t.TempDir(), "f")
		os.WriteFile(path+PartSuffix, old[:1000], 0o644)
		if withSidecar {
			sc := sidecar{Version: sidecarVersion, URL: o.srv.URL + "/f", Total: 4000, Algorithms: []string{"sha-256"}, Done: [][2]int64{{0, 1000}}}
			b, _ := json.Marshal(sc)
			os.WriteFile(path+SidecarSuffix, b, 0o600)
		}
		res, err := o.get(t, context.Background(), path, DownloadOptions{Continue: true}, 0)
		if err != nil {
			t.Fatal(err)
		}
		assertFileBytes(t, path, data)
		if w := strings.Join(res.Verdict.Warnings, "\n"); !strings.Contains(w, "fetched again in full") {
			t.Errorf("sidecar %v: warnings %q", withSidecar, w)
		}
	}
}
