package fetch

import (
	"bytes"
	"context"
	"encoding/hex"
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

// TestZsyncFalseSeedMatchFetched: a seed block that matches a block's
// checksums in the control file by chance (short ones: a file of one
// block declaring "Hash-Lengths: 2,1,3" keeps 32 bits, and MD4 collides
// at will) made the rebuilt file fail its SHA-1: the run ended as a
// mismatch (exit 1) and every later run, reading the same seed, did the
// same; the block was never fetched. Once the whole fails its check with
// blocks from seeds, every block is fetched from the origin and checked
// again (as a 226 that fails is retried as a full GET).
func TestZsyncFalseSeedMatchFetched(t *testing.T) {
	// Two 16-byte blocks of one rsum's low byte and one MD4's first 3
	// bytes, found by a birthday search.
	target, _ := hex.DecodeString("777fef74ee965853709802a0aabdc4e1")
	seedBytes, _ := hex.DecodeString("511ab0b4f62a134412971789366e6e30")
	ctl := shortControl(t, target)
	if other := shortControl(t, seedBytes); other.Rsums[0] != ctl.Rsums[0] || !bytes.Equal(other.Checksums, ctl.Checksums) {
		t.Fatal("the two blocks do not collide")
	}
	var cbuf bytes.Buffer
	ctl.WriteTo(&cbuf)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			w.Write(cbuf.Bytes())
			return
		}
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(target))
	}))
	defer ts.Close()
	dir := t.TempDir()
	seed, out := filepath.Join(dir, "seed"), filepath.Join(dir, "out")
	os.WriteFile(seed, seedBytes, 0o644)
	c, _ := NewClient(Options{Timeout: testStall})
	var warned []string
	req := &Request{URL: ts.URL + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}
	res, err := c.Zsync(context.Background(), req, ZsyncOptions{Output: out, Seeds: []string{seed},
		Warnf: func(f string, a ...any) { warned = append(warned, f) }})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, target) {
		t.Fatalf("wrote %x, want %x", got, target)
	}
	if res.Reused != 0 || len(warned) == 0 {
		t.Errorf("reused %d bytes, warned %q: want none reused, a warning", res.Reused, warned)
	}
}

// shortControl is block's control file (one block of 16 bytes) with
// Hash-Lengths 2,1,3: pairs declared, 1 byte of rsum, 3 of MD4.
func shortControl(t *testing.T, block []byte) *zsync.Control {
	t.Helper()
	c, err := zsync.Make(bytes.NewReader(block), int64(len(block)), zsync.MakeOptions{Blocksize: 16, URL: "f"})
	if err != nil {
		t.Fatal(err)
	}
	c.SeqMatches, c.RsumBytes, c.ChecksumBytes = 2, 1, 3
	c.Rsums[0] &= 0xff
	c.Checksums = c.Checksums[:3]
	return c
}
