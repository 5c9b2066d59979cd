package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// Seeds write their blocks into OUT.hdig-part before any origin answer
// says the control file describes the file it has. A run whose origin
// then answers the first range request with a 503, a 404 or a 416
// without Content-Range kept that part (and its sidecar): bytes only a
// local seed gave, never confirmed by the origin, left on disk as a part
// of a version the origin may not have. A failed run keeps its part only
// when it holds blocks the origin sent (or a part kept before, bound to
// the same control file).
func TestZsyncSeedOnlyPartNotKept(t *testing.T) {
	target := genData(256<<10, 7)
	ctl, err := zsync.Make(bytes.NewReader(target), int64(len(target)), zsync.MakeOptions{URL: "f", Blocksize: 2048})
	if err != nil {
		t.Fatal(err)
	}
	var cbuf bytes.Buffer
	ctl.WriteTo(&cbuf)
	seedBytes := bytes.Clone(target)
	seedBytes[100<<10] ^= 1 // one pair of blocks to fetch
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
	}{
		{"503", func(w http.ResponseWriter) { http.Error(w, "busy", http.StatusServiceUnavailable) }},
		{"404", func(w http.ResponseWriter) { http.NotFound(w, nil) }},
		{"416 without Content-Range", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, ".zsync") {
					w.Write(cbuf.Bytes())
					return
				}
				tc.answer(w)
			}))
			defer ts.Close()
			dir := t.TempDir()
			seed, out := filepath.Join(dir, "seed"), filepath.Join(dir, "out")
			os.WriteFile(seed, seedBytes, 0o644)
			c, _ := NewClient(Options{Timeout: testStall})
			_, err := c.Zsync(context.Background(), &Request{URL: ts.URL + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}, ZsyncOptions{Output: out, Seeds: []string{seed}})
			if err == nil {
				t.Fatal("the run succeeded")
			}
			for _, p := range []string{out, out + PartSuffix, out + ZsyncSidecarSuffix, out + zsyncSeedSuffix} {
				if fi, err := os.Stat(p); err == nil {
					t.Errorf("%s left (%d bytes) though no byte came from the origin", filepath.Base(p), fi.Size())
				}
			}
		})
	}
}
