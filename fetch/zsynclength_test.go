package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// TestZsyncLengthOverMaxBeforeTable: a control file whose Length is over
// --max-filesize was refused only once its whole block table had been
// read and held (at 16-byte blocks a table is a quarter of its Length, and
// costs some 60 bytes of memory a block): the header says it, so the table
// is not read.
func TestZsyncLengthOverMaxBeforeTable(t *testing.T) {
	const length, bs = 16 << 20, 16
	head := "zsync: 0.6.2\nBlocksize: 16\nLength: 16777216\nHash-Lengths: 1,1,3\nURL: f\nSHA-1: 0000000000000000000000000000000000000000\n\n"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(head))
		w.Write(make([]byte, length/bs*4))
	}))
	defer ts.Close()
	read := &countingTransport{rt: http.DefaultTransport}
	c, _ := NewClient(Options{Timeout: testStall, Transport: read})
	req := &Request{URL: ts.URL + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}, Limits: Limits{MaxFileSize: 1 << 20}}
	_, err := c.Zsync(context.Background(), req, ZsyncOptions{Output: filepath.Join(t.TempDir(), "out")})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want %v", err, ErrTooLarge)
	}
	if n := read.n.Load(); n > 1<<20 {
		t.Errorf("the block table was read: %d bytes of the control file's body", n)
	}
}

// countingTransport counts the bytes of response bodies read through it.
type countingTransport struct {
	rt http.RoundTripper
	n  atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	b.n.Add(int64(k))
	return k, err
}
