package delta

import (
	"bytes"
	"io"
	"math/rand"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/hdig/hdig/patch"
	"github.com/klauspost/compress/zstd"
)

// uncode undoes a Content-Encoding of zstd or br.
func uncode(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch enc {
	case "":
		return b
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("Content-Encoding %q, want br or zstd", enc)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", enc, err)
	}
	return out
}

// A 226 carries a content coding (RFC 3229 §10.7) when the client accepts
// br or zstd and it makes the delta smaller; the smallest accepted wins.
// Repr-Digest stays that of the current instance, Content-Digest is of
// the bytes sent.
func TestDelta226ContentCoding(t *testing.T) {
	v1, v2 := text(3000, 1), text(3000, 2)
	o := newOrigin(t, DefaultHistory)
	e1 := o.putETag(v1)
	o.put(v2)
	_, plain := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1})
	for _, ae := range []string{"zstd", "br", "br, zstd", "gzip, zstd;q=0.1"} {
		resp, body := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1, "Accept-Encoding": ae, "Want-Content-Digest": "sha-256"})
		if resp.StatusCode != http.StatusIMUsed {
			t.Fatalf("%s: status %d, want 226", ae, resp.StatusCode)
		}
		enc := resp.Header.Get("Content-Encoding")
		if enc == "" || len(body) >= len(plain) {
			t.Errorf("%s: Content-Encoding %q, %d bytes; want a coding smaller than the %d-byte vcdiff", ae, enc, len(body), len(plain))
		}
		if resp.Header.Get("Repr-Digest") != reprSHA256(v2) || resp.Header.Get("Content-Digest") != reprSHA256(body) {
			t.Errorf("%s: Repr-Digest %q Content-Digest %q", ae, resp.Header.Get("Repr-Digest"), resp.Header.Get("Content-Digest"))
		}
		var out bytes.Buffer
		if err := patch.DecodeVCDIFF(bytes.NewReader(v1), int64(len(v1)), bytes.NewReader(uncode(t, enc, body)), &out); err != nil || !bytes.Equal(out.Bytes(), v2) {
			t.Fatalf("%s: rebuilt %d bytes (%v), want v2", ae, out.Len(), err)
		}
	}
	// Only gzip accepted: the vcdiff goes as it is (it is compressed).
	resp, body := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1, "Accept-Encoding": "gzip"})
	if resp.StatusCode != http.StatusIMUsed || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, plain) {
		t.Errorf("gzip only: Content-Encoding %q, %d bytes, want the plain vcdiff", resp.Header.Get("Content-Encoding"), len(body))
	}
}

// A delta whose encode is estimated to take longer than sending the file
// is not made on the request path: the request gets 200, the delta is
// made in the background, one at a time, and the next request gets it.
func TestSlowEncodeInBackground(t *testing.T) {
	o, v2, e1 := slowEncodeOrigin(t)
	onPath, inBackground := countWhere(t, &encodeHook)
	resp, body := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1})
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, v2) {
		t.Fatalf("first request: status %d, %d bytes; want 200 with the file", resp.StatusCode, len(body))
	}
	o.h.Wait()
	resp, _ = o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1})
	if resp.StatusCode != http.StatusIMUsed {
		t.Errorf("second request: status %d, want 226 from the delta made in the background", resp.StatusCode)
	}
	if onPath.Load() != 0 || inBackground.Load() != 1 {
		t.Errorf("%d encodes on the request path and %d in the background, want 0 and 1", onPath.Load(), inBackground.Load())
	}
	// Refusing identity still gets the delta, made on the path if need be.
	o.put(text(3000, 3))
	resp, _ = o.get(map[string]string{"A-IM": "vcdiff, identity;q=0", "If-None-Match": e1})
	if resp.StatusCode != http.StatusIMUsed || onPath.Load() != 1 {
		t.Errorf("identity refused: status %d, %d encodes on the path; want 226 and 1", resp.StatusCode, onPath.Load())
	}
}

// A delta too large to code quickly is sent as it is, and coded in the
// background for the next request: no coding is made on the request path.
func TestLargeDeltaCodedInBackground(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	v1 := make([]byte, 256<<10) // incompressible: the 226 beats a br or zstd 200
	rnd.Read(v1)
	extra := make([]byte, 48<<10)
	for i := range extra {
		extra[i] = "0123456789abcdef"[rnd.Intn(16)] // little to copy; entropy coding halves it
	}
	v2 := append(bytes.Clone(v1), extra...)
	o := newOrigin(t, DefaultHistory)
	e1 := o.putETag(v1)
	o.put(v2)
	onPath, inBackground := countWhere(t, &codeHook)
	ask := map[string]string{"A-IM": "vcdiff", "If-None-Match": e1, "Accept-Encoding": "zstd, br"}
	resp, first := o.get(ask)
	o.h.Wait()
	if resp.StatusCode != http.StatusIMUsed || resp.Header.Get("Content-Encoding") != "" || len(first) <= codeOnPathMax {
		t.Fatalf("first request: %d %q, %d bytes; want 226 with the delta of more than %d bytes as it is",
			resp.StatusCode, resp.Header.Get("Content-Encoding"), len(first), codeOnPathMax)
	}
	if onPath.Load() != 0 || inBackground.Load() != 2 {
		t.Errorf("codings: %d on the request path, %d in the background; want 0 and 2 (zstd, br)", onPath.Load(), inBackground.Load())
	}
	resp, body := o.get(ask)
	enc := resp.Header.Get("Content-Encoding")
	if resp.StatusCode != http.StatusIMUsed || enc == "" || len(body) >= len(first) || !bytes.Equal(uncode(t, enc, body), first) {
		t.Errorf("second request: %d %q, %d bytes; want 226 in a coding smaller than %d bytes", resp.StatusCode, enc, len(body), len(first))
	}
	if onPath.Load() != 0 || inBackground.Load() != 2 {
		t.Errorf("after the second request: %d codings on the request path, %d in the background; want 0 and 2", onPath.Load(), inBackground.Load())
	}
}

// countWhere sets *hook, until the test ends, to count the calls made on
// the request path and in the background.
func countWhere(t *testing.T, hook *func(background bool)) (onPath, inBackground *atomic.Int32) {
	onPath, inBackground = new(atomic.Int32), new(atomic.Int32)
	*hook = func(background bool) {
		if background {
			inBackground.Add(1)
		} else {
			onPath.Add(1)
		}
	}
	t.Cleanup(func() { *hook = nil })
	return onPath, inBackground
}

// slowEncodeOrigin serves two text versions with an encode rate that makes
// no delta worth waiting for; it returns the second version and the
// first one's ETag.
func slowEncodeOrigin(t *testing.T) (o *origin, v2 []byte, e1 string) {
	o = newOrigin(t, DefaultHistory)
	o.h.SetRates(1, 1<<40) // encoding 1 B/s, sending 1 TiB/s: never worth waiting for
	e1 = o.putETag(text(3000, 1))
	v2 = text(3000, 2)
	o.put(v2)
	return o, v2, e1
}
