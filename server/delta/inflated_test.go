package delta

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/patch"
)

// zlibVersion is a file like a Go binary's: code around a zlib stream of
// text, the text edited near its start when edit is set.
func zlibVersion(edit bool) []byte {
	var txt bytes.Buffer
	r := rand.New(rand.NewSource(4))
	for line := 0; txt.Len() < 300<<10; line++ {
		if edit && line == 100 {
			txt.WriteString("an edited line\n")
		}
		fmt.Fprintf(&txt, "%d: %x\n", line, r.Intn(1<<16))
	}
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, 1)
	w.Write(txt.Bytes())
	w.Close()
	code := make([]byte, 100<<10)
	rand.New(rand.NewSource(5)).Read(code)
	return bytes.Join([][]byte{code, z.Bytes(), code[:500]}, nil)
}

// twoVersions serves v1, then v2 at the same path, and returns a function
// asking for v2 with A-IM aim and v1's ETag.
func twoVersions(t *testing.T, v1, v2 []byte) func(aim string) (*http.Response, []byte) {
	url, _, r1 := servedThenChanged(t, v1, v2)
	return func(aim string) (*http.Response, []byte) {
		return getWith(t, url, "A-IM", aim, "If-None-Match", r1.Header.Get("ETag"), "Accept-Encoding", "identity")
	}
}

// A client accepting hdig-vcdiff-inflated gets it for a version with a
// zlib stream: far smaller than plain VCDIFF, and it rebuilds v2.
func TestInflatedDeltaServed(t *testing.T) {
	v1, v2 := zlibVersion(false), zlibVersion(true)
	ask := twoVersions(t, v1, v2)
	plain, pb := ask("vcdiff")
	resp, body := ask(patch.InflatedIM + ", vcdiff")
	if plain.StatusCode != http.StatusIMUsed || resp.StatusCode != http.StatusIMUsed {
		t.Fatalf("status %d and %d, want 226", plain.StatusCode, resp.StatusCode)
	}
	if im := resp.Header.Get("IM"); im != patch.InflatedIM {
		t.Fatalf("IM %q, want %s", im, patch.InflatedIM)
	}
	if got := rebuild(t, v1, resp.Header.Get("IM"), body); !bytes.Equal(got, v2) {
		t.Fatalf("rebuilt %d bytes, want v2", len(got))
	}
	t.Logf("vcdiff %d B, %s %d B", len(pb), patch.InflatedIM, len(body))
	if len(body)*4 > len(pb) {
		t.Errorf("%s: %d bytes, want under a quarter of vcdiff's %d", patch.InflatedIM, len(body), len(pb))
	}
}

// A version with no zlib stream gets plain VCDIFF, and the origin does
// not look for streams in it again.
func TestInflatedNotTriedTwice(t *testing.T) {
	v1, v2 := text(3000, 1), text(3000, 2)
	ask := twoVersions(t, v1, v2)
	var encodes atomic.Int32
	encodeHook = func(context.Context) { encodes.Add(1) }
	defer func() { encodeHook = nil }()
	resp, body := ask(patch.InflatedIM + ", vcdiff")
	if resp.StatusCode != http.StatusIMUsed || resp.Header.Get("IM") != "vcdiff" {
		t.Fatalf("status %d IM %q, want 226 vcdiff", resp.StatusCode, resp.Header.Get("IM"))
	}
	if got := rebuild(t, v1, "vcdiff", body); !bytes.Equal(got, v2) {
		t.Fatal("the vcdiff does not rebuild v2")
	}
	if n := encodes.Load(); n != 2 {
		t.Errorf("%d encodes, want 2 (%s found nothing to expand, then vcdiff)", n, patch.InflatedIM)
	}
	encodes.Store(0)
	resp, _ = ask(patch.InflatedIM + ", gdiff")
	if resp.Header.Get("IM") != "gdiff" || encodes.Load() != 1 {
		t.Errorf("IM %q after %d encodes, want gdiff after 1", resp.Header.Get("IM"), encodes.Load())
	}
}
