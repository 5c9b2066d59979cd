package delta

import (
	"bytes"
	"context"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/dictionary"
)

// offered is what an origin holding v1 and v2 of /assets/app.txt sends a
// client holding v1: for a base alone (A-IM, If-None-Match), for the
// dictionary alone (Available-Dictionary, dcb, dcz), and for both.
type offered struct {
	delta, dict, both       *http.Response
	deltaBody, dictBody, bb []byte
}

func offerBoth(t *testing.T, v1, v2 []byte, aim, ae string) offered {
	t.Helper()
	url, state, r1 := servedThenChanged(t, v1, v2)
	e1 := r1.Header.Get("ETag")
	if r1.Header.Get("Use-As-Dictionary") == "" {
		t.Fatal("v1 was not offered as a dictionary")
	}
	avail := dictionary.FormatAvailableDictionary(dictionary.HashOf(v1))
	var o offered
	o.delta, o.deltaBody = getWith(t, url, "A-IM", aim, "If-None-Match", e1, "Accept-Encoding", ae)
	o.dict, o.dictBody = getWith(t, url, "Available-Dictionary", avail, "Accept-Encoding", ae+", dcb, dcz")
	// Both were made for the requests above: choosing between them makes
	// no delta, coding or variant.
	var encodes atomic.Int32
	encodeHook = func(context.Context) { encodes.Add(1) }
	codeHook = encodeHook
	defer func() { encodeHook, codeHook = nil, nil }()
	variants, _ := filepath.Glob(filepath.Join(state, "variants", "*"))
	o.both, o.bb = getWith(t, url, "A-IM", aim, "If-None-Match", e1, "Available-Dictionary", avail,
		"Accept-Encoding", ae+", dcb, dcz", "Want-Content-Digest", "sha-256")
	after, _ := filepath.Glob(filepath.Join(state, "variants", "*"))
	if encodes.Load() != 0 || len(after) != len(variants) {
		t.Errorf("both offered: %d deltas or codings made and %d variants, want 0 and the %d made before", encodes.Load(), len(after), len(variants))
	}
	if o.delta.StatusCode != http.StatusIMUsed {
		t.Fatalf("base offered: status %d, want 226 (%v)", o.delta.StatusCode, o.delta.Header)
	}
	if enc := o.dict.Header.Get("Content-Encoding"); enc != "dcb" && enc != "dcz" {
		t.Fatalf("dictionary offered: Content-Encoding %q, want dcb or dcz", enc)
	}
	t.Logf("226 %d bytes (IM %s), %s %d bytes; both offered: %d %q %d bytes, Vary %q", len(o.deltaBody), o.delta.Header.Get("IM"),
		o.dict.Header.Get("Content-Encoding"), len(o.dictBody), o.both.StatusCode, o.both.Header.Get("Content-Encoding"), len(o.bb), o.both.Header.Values("Vary"))
	return o
}

// servedThenChanged serves v1 from a dictionary origin, gets it, then
// replaces it with v2 at the same path; it returns the URL, the origin's
// state directory and the response for v1.
func servedThenChanged(t *testing.T, v1, v2 []byte) (url, state string, r1 *http.Response) {
	t.Helper()
	dir := t.TempDir()
	state = t.TempDir()
	file := writeAsset(t, dir, v1)
	url, stop := dictOrigin(t, dir, state)
	t.Cleanup(stop)
	url += "/assets/app.txt"
	r1, _ = getWith(t, url, "Accept-Encoding", "identity")
	if err := os.WriteFile(file, v2, 0o644); err != nil {
		t.Fatal(err)
	}
	return url, state, r1
}

// varies reports whether the response's Vary lists each of names, once.
func varies(resp *http.Response, names ...string) bool {
	count := map[string]int{}
	for _, t := range strings.Split(strings.Join(resp.Header.Values("Vary"), ","), ",") {
		count[strings.ToLower(strings.TrimSpace(t))]++
	}
	for _, n := range names {
		if count[strings.ToLower(n)] != 1 {
			return false
		}
	}
	return true
}

// A request offering a dictionary and a base gets the dictionary-coded
// 200 when that is smaller than the 226, with the fields of a dcb/dcz
// response, and it decodes to the current version.
func TestBothOfferedDictionarySmaller(t *testing.T) {
	v1, v2 := text(3000, 1), text(3000, 2)
	o := offerBoth(t, v1, v2, "vcdiff", "identity")
	if len(o.dictBody) >= len(o.deltaBody) {
		t.Fatalf("test data: want the dictionary coding smaller than the 226, got %d and %d bytes", len(o.dictBody), len(o.deltaBody))
	}
	enc := o.dict.Header.Get("Content-Encoding")
	if o.both.StatusCode != http.StatusOK || o.both.Header.Get("Content-Encoding") != enc || !bytes.Equal(o.bb, o.dictBody) {
		t.Fatalf("both offered: %d %q, %d bytes; want 200 %s, the %d bytes of the dictionary coding",
			o.both.StatusCode, o.both.Header.Get("Content-Encoding"), len(o.bb), enc, len(o.dictBody))
	}
	h := o.both.Header
	if h.Get("IM") != "" || h.Get("Delta-Base") != "" || h.Get("ETag") != o.dict.Header.Get("ETag") ||
		h.Get("Repr-Digest") != reprSHA256(o.bb) || h.Get("Content-Digest") != reprSHA256(o.bb) {
		t.Errorf("both offered, %s: IM %q Delta-Base %q ETag %q (want %q) Repr-Digest %q Content-Digest %q (want %q)", enc, h.Get("IM"),
			h.Get("Delta-Base"), h.Get("ETag"), o.dict.Header.Get("ETag"), h.Get("Repr-Digest"), h.Get("Content-Digest"), reprSHA256(o.bb))
	}
	if !varies(o.both, "Accept-Encoding", "Available-Dictionary") {
		t.Errorf("both offered, %s: Vary %q, want Accept-Encoding and Available-Dictionary", enc, h.Values("Vary"))
	}
	if got, err := dictionary.Decode(enc, o.bb, v1, dictionary.Limits{}); err != nil || !bytes.Equal(got, v2) {
		t.Fatalf("both offered: %s does not decode to v2: %v", enc, err)
	}
}

// A request offering a dictionary and a base gets the 226 when that is
// smaller than the dictionary coding, in the compression its A-IM accepts
// that makes it smallest, with the fields of a 226, and it rebuilds the
// current version from the base.
func TestBothOfferedDeltaSmaller(t *testing.T) {
	v1 := make([]byte, 64<<10)
	rand.New(rand.NewSource(1)).Read(v1)
	v2 := append(append(bytes.Clone(v1[:1000]), "a change"...), v1[1000:]...)
	for _, tc := range []struct{ aim, ae string }{{"vcdiff", "identity"}, {"vcdiff", "zstd, br"}, {"vcdiff, zstd, br", "zstd, br"}} {
		aim := tc.aim
		o := offerBoth(t, v1, v2, aim, tc.ae)
		if len(o.deltaBody) >= len(o.dictBody) {
			t.Fatalf("%s: test data: want the 226 smaller than the dictionary coding, got %d and %d bytes", aim, len(o.deltaBody), len(o.dictBody))
		}
		h := o.both.Header
		if o.both.StatusCode != http.StatusIMUsed || !bytes.Equal(o.bb, o.deltaBody) || h.Get("Content-Encoding") != "" || h.Get("IM") != o.delta.Header.Get("IM") {
			t.Fatalf("%s: both offered: %d %q IM %q, %d bytes; want the 226 of %d bytes", aim, o.both.StatusCode, h.Get("Content-Encoding"), h.Get("IM"), len(o.bb), len(o.deltaBody))
		}
		if !strings.HasPrefix(h.Get("IM"), "vcdiff") || h.Get("Delta-Base") == "" || h.Get("ETag") != o.delta.Header.Get("ETag") ||
			h.Get("Repr-Digest") != reprSHA256(v2) || h.Get("Content-Digest") != reprSHA256(o.bb) {
			t.Errorf("%s: both offered, 226: IM %q Delta-Base %q ETag %q Repr-Digest %q Content-Digest %q", aim, h.Get("IM"),
				h.Get("Delta-Base"), h.Get("ETag"), h.Get("Repr-Digest"), h.Get("Content-Digest"))
		}
		if !varies(o.both, "Accept-Encoding", "Available-Dictionary") {
			t.Errorf("%s: both offered, 226: Vary %q, want Accept-Encoding and Available-Dictionary", aim, h.Values("Vary"))
		}
		if got := rebuild(t, v1, h.Get("IM"), o.bb); !bytes.Equal(got, v2) {
			t.Fatalf("%s: rebuilt %d bytes, want v2", aim, len(got))
		}
	}
}

// A request for a delta that accepts zstd gets the zstd variant when no
// delta is sent (here: it is made in the background), not the identity;
// and a 304 when If-None-Match names the current identity.
func TestDeltaDeclinedSendsVariant(t *testing.T) {
	o, _, e1 := slowEncodeOrigin(t)
	r2, _ := o.get(nil)
	e2 := r2.Header.Get("ETag")
	zv, zbody := o.get(map[string]string{"Accept-Encoding": "zstd"})
	if zv.Header.Get("Content-Encoding") != "zstd" {
		t.Fatalf("no delta asked: Content-Encoding %q, want zstd", zv.Header.Get("Content-Encoding"))
	}
	resp, body := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1, "Accept-Encoding": "zstd"})
	o.h.Wait()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "zstd" || !bytes.Equal(body, zbody) {
		t.Fatalf("delta not made: %d %q, %d bytes; want 200 zstd, the %d bytes of the variant",
			resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body), len(zbody))
	}
	if resp.Header.Get("ETag") != zv.Header.Get("ETag") || resp.Header.Get("Repr-Digest") != reprSHA256(body) || !varies(resp, "Accept-Encoding") {
		t.Errorf("delta not made: ETag %q (want %q) Repr-Digest %q Vary %q", resp.Header.Get("ETag"), zv.Header.Get("ETag"),
			resp.Header.Get("Repr-Digest"), resp.Header.Values("Vary"))
	}
	resp, body = o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1 + ", " + e2, "Accept-Encoding": "zstd"})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("ETag") != e2 {
		t.Fatalf("If-None-Match names the current identity: %d, ETag %q, %d bytes; want 304 %s", resp.StatusCode, resp.Header.Get("ETag"), len(body), e2)
	}
}
