package delta

import (
	"bytes"
	"context"
	"math/rand"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/patch"
)

// rebuild undoes the IM list im (a delta coding and compressions) on
// body against base.
func rebuild(t *testing.T, base []byte, im string, body []byte) []byte {
	t.Helper()
	ims, err := patch.ParseIM([]string{im})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := patch.Undo(ims, bytes.NewReader(base), int64(len(base)), bytes.NewReader(body), &out); err != nil {
		t.Fatalf("IM %s: %v", im, err)
	}
	return out.Bytes()
}

// A 226 is compressed by zstd or br when the A-IM lists one after the
// delta coding and it makes the delta smaller: the smallest accepted wins,
// named in IM after the coding ("IM: vcdiff, zstd"), never as a
// Content-Encoding, which would say the delta is between coded instances
// (RFC 3229 §10.7). Repr-Digest stays that of the current instance,
// Content-Digest is of the bytes sent.
func TestDelta226CompressedAsIM(t *testing.T) {
	v1, v2 := text(3000, 1), text(3000, 2)
	o := newOrigin(t, DefaultHistory)
	e1 := o.putETag(v1)
	o.put(v2)
	_, plain := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1})
	for _, aim := range []string{"vcdiff, zstd", "vcdiff, br", "vcdiff, br, zstd", "vcdiff, gzip, zstd;q=0.1"} {
		resp, body := o.get(map[string]string{"A-IM": aim, "If-None-Match": e1, "Accept-Encoding": "zstd, br", "Want-Content-Digest": "sha-256"})
		if resp.StatusCode != http.StatusIMUsed {
			t.Fatalf("%s: status %d, want 226", aim, resp.StatusCode)
		}
		im := resp.Header.Get("IM")
		if (im != "vcdiff, zstd" && im != "vcdiff, br") || len(body) >= len(plain) || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: IM %q, Content-Encoding %q, %d bytes; want vcdiff and a compression, smaller than the %d-byte vcdiff, no content coding",
				aim, im, resp.Header.Get("Content-Encoding"), len(body), len(plain))
		}
		if resp.Header.Get("Repr-Digest") != reprSHA256(v2) || resp.Header.Get("Content-Digest") != reprSHA256(body) {
			t.Errorf("%s: Repr-Digest %q Content-Digest %q", aim, resp.Header.Get("Repr-Digest"), resp.Header.Get("Content-Digest"))
		}
		if got := rebuild(t, v1, im, body); !bytes.Equal(got, v2) {
			t.Fatalf("%s: rebuilt %d bytes, want v2", aim, len(got))
		}
	}
	// Accept-Encoding alone, gzip only, or a compression listed before the
	// coding: the vcdiff goes as it is (it is compressed itself).
	for _, aim := range []string{"vcdiff", "vcdiff, gzip", "zstd, vcdiff"} {
		resp, body := o.get(map[string]string{"A-IM": aim, "If-None-Match": e1, "Accept-Encoding": "zstd, br"})
		if resp.StatusCode != http.StatusIMUsed || resp.Header.Get("IM") != "vcdiff" || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, plain) {
			t.Errorf("%s: %d IM %q Content-Encoding %q, %d bytes, want the plain vcdiff", aim, resp.StatusCode,
				resp.Header.Get("IM"), resp.Header.Get("Content-Encoding"), len(body))
		}
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
	ask := map[string]string{"A-IM": "vcdiff, zstd, br", "If-None-Match": e1}
	resp, first := o.get(ask)
	o.h.Wait()
	if resp.StatusCode != http.StatusIMUsed || resp.Header.Get("IM") != "vcdiff" || len(first) <= codeOnPathMax {
		t.Fatalf("first request: %d IM %q, %d bytes; want 226 with the delta of more than %d bytes as it is",
			resp.StatusCode, resp.Header.Get("IM"), len(first), codeOnPathMax)
	}
	if onPath.Load() != 0 || inBackground.Load() != 2 {
		t.Errorf("codings: %d on the request path, %d in the background; want 0 and 2 (zstd, br)", onPath.Load(), inBackground.Load())
	}
	resp, body := o.get(ask)
	im := resp.Header.Get("IM")
	if resp.StatusCode != http.StatusIMUsed || !strings.HasPrefix(im, "vcdiff, ") || len(body) >= len(first) || !bytes.Equal(rebuild(t, v1, im, body), v2) {
		t.Errorf("second request: %d IM %q, %d bytes; want 226 compressed, smaller than %d bytes", resp.StatusCode, im, len(body), len(first))
	}
	if onPath.Load() != 0 || inBackground.Load() != 2 {
		t.Errorf("after the second request: %d codings on the request path, %d in the background; want 0 and 2", onPath.Load(), inBackground.Load())
	}
}

// countWhere sets *hook, until the test ends, to count the calls made on
// the request path and in the background.
func countWhere(t *testing.T, hook *func(context.Context)) (onPath, background *atomic.Int32) {
	onPath, background = new(atomic.Int32), new(atomic.Int32)
	*hook = func(ctx context.Context) {
		if inBackground(ctx) {
			background.Add(1)
		} else {
			onPath.Add(1)
		}
	}
	t.Cleanup(func() { *hook = nil })
	return onPath, background
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
