package cmd

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fieldOrigin serves /f with a Link to /f.zsync and the header fields
// fields gives, and the control file at /f.zsync.
type fieldOrigin struct {
	body, ctl []byte
	fields    map[string]string
}

func (o *fieldOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !atFile(w, r, o.ctl) {
		return
	}
	w.Header().Set("ETag", `"v2"`)
	w.Header().Set("Link", `<f.zsync>; rel="describedby"; type="application/x-zsync"`)
	for k, v := range o.fields {
		w.Header().Set(k, v)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(o.body))
}

// TestGetZsyncForeignDigestStale: a control file older than the file (same
// length, every block in the seed) rebuilds the old version. The origin
// sends no Repr-Digest, but a digest of the file in a field outside RFC
// 9530 (the obsolete Digest, x-goog-hash, x-amz-checksum-*), which hdig
// reads on any plain get: it tells the rebuilt bytes are not the file, and
// the run fails (exit 1, nothing written) instead of passing them as
// unverified (exit 0).
func TestGetZsyncForeignDigestStale(t *testing.T) {
	cur, old := zsyncData(41, 200_000), zsyncData(42, 200_000)
	ctl := controlFor(t, old)
	m, s := md5.Sum(cur), sha256.Sum256(cur)
	b64 := base64.StdEncoding.EncodeToString
	for _, c := range []struct {
		name   string
		fields map[string]string
	}{
		{"Digest", map[string]string{"Digest": "SHA-256=" + b64(s[:])}},
		{"x-goog-hash", map[string]string{"X-Goog-Hash": "md5=" + b64(m[:])}},
		{"x-amz-checksum-sha256", map[string]string{"X-Amz-Checksum-Sha256": b64(s[:])}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(&fieldOrigin{body: cur, ctl: ctl, fields: c.fields})
			defer ts.Close()
			work := t.TempDir()
			seed, out := filepath.Join(work, "seed"), filepath.Join(work, "new")
			os.WriteFile(seed, old, 0o644)
			code, _, errOut := runHdig(t, "get", "--zsync", "--no-cache", "--seed", seed, "-o", out, ts.URL+"/f")
			if code != ExitIntegrity || !strings.Contains(errOut, "mismatch") {
				t.Errorf("exit %d, %q; want 1 and a mismatch", code, errOut)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("the output was written")
			}
		})
	}
}
