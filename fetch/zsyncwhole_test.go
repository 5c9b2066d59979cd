package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestZsyncWholeBodyOtherLength: an origin that answers the ranges with
// the whole file (200) and states no length (chunked) sends a file of
// another length than the control file's: shorter, it ended as the
// output's I/O error (exit 2: "fetched block 1: want 2048 bytes") or, at
// a block's end, as blocks "still missing"; longer, as the output's I/O
// error ("run past the target"). Either way the control file was made
// from another version, as a Content-Length saying so is (lengthIs):
// a mismatch (exit 1), nothing written.
func TestZsyncWholeBodyOtherLength(t *testing.T) {
	body := genData(64<<10, 3)
	ctl := controlBytes(t, body)
	seedBytes := bytes.Clone(body)
	seedBytes[10000] ^= 1
	for _, tc := range []struct {
		name string
		sent []byte
	}{
		{"shorter, mid-block", body[:3000]},
		{"shorter, at a block's end", body[:4096]},
		{"longer", append(bytes.Clone(body), 1, 2, 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, ".zsync") {
					w.Write(ctl)
					return
				}
				w.WriteHeader(http.StatusOK)
				w.Write(tc.sent[:1000])
				w.(http.Flusher).Flush() // chunked: no Content-Length
				w.Write(tc.sent[1000:])
			}))
			defer ts.Close()
			dir := t.TempDir()
			seed, out := filepath.Join(dir, "seed"), filepath.Join(dir, "out")
			os.WriteFile(seed, seedBytes, 0o644)
			c, _ := NewClient(Options{Timeout: testStall})
			req := &Request{URL: ts.URL + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}
			_, err := c.Zsync(context.Background(), req, ZsyncOptions{Output: out, Seeds: []string{seed}})
			if !errors.Is(err, ErrMismatch) || errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), "another version") {
				t.Errorf("err = %v; want a mismatch naming another version, not an output error", err)
			}
			for _, p := range []string{out, out + PartSuffix} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s written", filepath.Base(p))
				}
			}
		})
	}
}
