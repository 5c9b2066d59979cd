package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

// TestResumeUnusableSidecarStartsOver: a part beside a sidecar hdig cannot
// use (another URL's, as a presigned URL's new query makes it; another
// version's; damaged) is a part of hdig's whose spans are unknown: pieces
// fetched in parallel leave holes in it. It is not resumed from its end
// (the holes would be kept, and with no digest from the origin released
// as merely unverified): the file is fetched again in full.
func TestResumeUnusableSidecarStartsOver(t *testing.T) {
	data := genData(1<<20, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	q := int64(len(data) / 4)
	for _, tt := range []struct {
		name string
		side func() []byte
	}{
		{"other URL", func() []byte {
			b, _ := json.Marshal(sidecar{Version: sidecarVersion, URL: srv.URL + "/f?sig=old", ETag: `"v1"`, Total: int64(len(data)),
				Algorithms: []string{"sha-256"}, Done: [][2]int64{{0, q}, {2 * q, 3 * q}}})
			return b
		}},
		{"not JSON", func() []byte { return []byte("{") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			part := make([]byte, 3*q) // bytes q..2q never came: a hole
			copy(part, data[:q])
			copy(part[2*q:], data[2*q:3*q])
			if err := os.WriteFile(path+PartSuffix, part, 0o600); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(path+SidecarSuffix, tt.side(), 0o600)
			c, _ := NewClient(Options{Timeout: testStall})
			req := &Request{URL: srv.URL + "/f", Policy: verify.DefaultPolicy()}
			res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
			got, _ := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("-C: %v (warnings %q); want the file fetched again in full (FILE is the origin's: %v)",
					err, strings.Join(res.Verdict.Warnings, "; "), bytes.Equal(got, data))
			}
		})
	}
}
