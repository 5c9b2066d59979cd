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
	"time"

	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// A control file whose Length is far above the file the origin serves
// (its target: 1 MiB of zeros and one other block; the origin's file: 4
// KiB) fails as a mismatch once the origin says the file's length (here
// the 416's Content-Range: bytes */4096), and leaves no part holding what
// the seed of zeros filled in: a kept part would hold the control file's
// Length of disk after the run.
func TestZsyncLengthOverOriginFails(t *testing.T) {
	target := make([]byte, 1<<20+2048)
	copy(target[1<<20:], "the one block no seed has")
	ctl, err := zsync.Make(bytes.NewReader(target), int64(len(target)), zsync.MakeOptions{URL: "f", Blocksize: 2048})
	if err != nil {
		t.Fatal(err)
	}
	var cbuf bytes.Buffer
	ctl.WriteTo(&cbuf)
	file := bytes.Repeat([]byte("x"), 4096)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			w.Write(cbuf.Bytes())
			return
		}
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(file))
	}))
	defer ts.Close()
	dir := t.TempDir()
	seed, out := filepath.Join(dir, "seed"), filepath.Join(dir, "out")
	os.WriteFile(seed, make([]byte, 64<<10), 0o644)
	c, _ := NewClient(Options{Timeout: testStall})
	_, err = c.Zsync(context.Background(), &Request{URL: ts.URL + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}, ZsyncOptions{Output: out, Seeds: []string{seed}})
	t.Logf("err: %v", err)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "made from another version") || strings.Contains(err.Error(), "checksums") {
		t.Errorf("err %v, want a mismatch saying the control file describes another version", err)
	}
	for _, p := range []string{out, out + PartSuffix, out + ZsyncSidecarSuffix} {
		if fi, err := os.Stat(p); err == nil {
			t.Errorf("%s left (%d bytes)", p, fi.Size())
		}
	}
}
