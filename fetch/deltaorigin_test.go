package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
	"github.com/hdig/hdig/verify"
)

// deltaText is a deterministic text of about 250 KiB; version v edits a
// few lines of version 1.
func deltaText(v int) []byte {
	var b bytes.Buffer
	for i := 0; i < 8000; i++ {
		x := i
		if v > 1 && i%331 == v {
			x = i*13 + v
		}
		fmt.Fprintf(&b, "const value%d = %d; // line %d of the text\n", i, x, i)
	}
	return b.Bytes()
}

// deltaEnv is hdig serve with its delta step (and dictionaries for
// /app/*) serving one file, /app/NAME, and a client with a base-version cache.
type deltaEnv struct {
	dir, name, url string
	c              *Client
	store          *cache.Cache

	mu   sync.Mutex
	sent []http.Header // the request headers, in order
}

func newDeltaEnv(t *testing.T, name string, body []byte, opts ...server.Option) *deltaEnv {
	t.Helper()
	h, err := delta.New(t.TempDir(), delta.DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.SetRates(1<<40, 1) // every delta is made on the request path
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "app"), 0o755)
	e := &deltaEnv{dir: dir, name: name}
	e.put(t, body)
	srv, err := server.New(dir, append([]server.Option{server.WithDelta(h), server.WithDictionary("/app/*")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close(); h.Wait() })
	e.url = ts.URL + "/app/" + name
	e.store, err = cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.store.Close() })
	e.c, _ = NewClient(Options{Timeout: testStall})
	return e
}

// put replaces the served file.
func (e *deltaEnv) put(t *testing.T, body []byte) {
	t.Helper()
	tmp := filepath.Join(e.dir, "app", ".tmp")
	if err := os.WriteFile(tmp, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(e.dir, "app", e.name)); err != nil {
		t.Fatal(err)
	}
}

// get fetches the file into a held sink; mod adjusts the request.
func (e *deltaEnv) get(t *testing.T, mod func(*Request)) (*Result, []byte) {
	t.Helper()
	var out bytes.Buffer
	req := &Request{URL: e.url, Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: e.store},
		OnRequest: func(r *http.Request) {
			e.mu.Lock()
			e.sent = append(e.sent, r.Header.Clone())
			e.mu.Unlock()
		}}
	if mod != nil {
		mod(req)
	}
	res, err := e.c.Get(context.Background(), req, &HeldSink{Out: &out})
	if err != nil {
		t.Fatalf("get: %v (warnings %q)", err, warnings(res))
	}
	return res, out.Bytes()
}

// last is the last request's header.
func (e *deltaEnv) last() http.Header {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent[len(e.sent)-1]
}

// dictSums lists the sha-256 (hex) of the dictionaries stored.
func (e *deltaEnv) dictSums() []string {
	var out []string
	for _, d := range e.store.Dicts() {
		out = append(out, d.SHA256)
	}
	return out
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// A 226 rebuilt and verified against its Repr-Digest is the whole new
// representation: its Use-As-Dictionary stores the rebuilt bytes (named
// by their sha-256, not the delta's), which the next request offers.
func TestDeltaResultBecomesDictionary(t *testing.T) {
	v1, v2 := deltaText(1), deltaText(2)
	e := newDeltaEnv(t, "f.txt", v1)
	if res, out := e.get(t, nil); res.Status != http.StatusOK || !bytes.Equal(out, v1) {
		t.Fatalf("v1: status %d, %d bytes", res.Status, len(out))
	}
	if got := e.dictSums(); len(got) != 1 || got[0] != sha256Hex(v1) {
		t.Fatalf("dictionaries after v1: %v; want v1's", got)
	}
	e.put(t, v2)
	res, out := e.get(t, func(r *Request) { r.Delta.NoDictionary = true })
	if res.Status != http.StatusIMUsed || !bytes.Equal(out, v2) || res.Outcome() != verify.Verified {
		t.Fatalf("v2: status %d, %d bytes, %s; want a verified 226 (warnings %q)", res.Status, len(out), res.Outcome(), warnings(res))
	}
	if strings.Contains(warnings(res), "Use-As-Dictionary") {
		t.Errorf("v2 warned %q", warnings(res))
	}
	if got := e.dictSums(); len(got) != 1 || got[0] != sha256Hex(v2) {
		t.Fatalf("dictionaries after the 226: %v; want the rebuilt v2's %s (v1's %s)", got, sha256Hex(v2), sha256Hex(v1))
	}
	e.put(t, deltaText(3))
	e.get(t, nil)
	if got, want := e.last().Get(fieldAvailableDictionary), availableOf(v2); got != want {
		t.Errorf("v3 offered Available-Dictionary %q; want v2's %q", got, want)
	}
}

// A 226 whose rebuilt bytes nothing verified (no Repr-Digest) stores no
// dictionary, and says why.
func TestDeltaResultUnverifiedNoDictionary(t *testing.T) {
	v1, v2 := deltaText(1), deltaText(2)
	e := newDeltaEnv(t, "f.txt", v1, server.WithoutDigests())
	e.get(t, nil)
	if got := e.dictSums(); len(got) != 1 || got[0] != sha256Hex(v1) {
		t.Fatalf("dictionaries after v1: %v; want v1's", got)
	}
	e.put(t, v2)
	res, out := e.get(t, func(r *Request) { r.Delta.NoDictionary = true })
	if res.Status != http.StatusIMUsed || !bytes.Equal(out, v2) {
		t.Fatalf("v2: status %d, %d bytes; want a 226", res.Status, len(out))
	}
	if got := e.dictSums(); len(got) != 1 || got[0] != sha256Hex(v1) {
		t.Errorf("dictionaries after an unverified 226: %v; want v1's alone", got)
	}
	if !strings.Contains(warnings(res), "Use-As-Dictionary: not stored") {
		t.Errorf("warnings %q; want why the 226 was not stored as a dictionary", warnings(res))
	}
}

// hexText is 2,000 lines of hex digests (text that compresses to about
// half), and n pseudo-random words of a small vocabulary after it: new
// text that no copy from the base makes shorter, and a content coding over
// the delta does.
func hexText(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < 2000; i++ {
		s := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		b.WriteString(hex.EncodeToString(s[:]) + "\n")
	}
	words := []string{"delta", "base", "digest", "origin", "client", "window", "match", "coding"}
	x := uint32(1)
	for i := 0; i < n; i++ {
		x = x*1664525 + 1013904223
		b.WriteString(words[x>>29])
		b.WriteByte(" \n"[(x>>8)&1])
	}
	return b.Bytes()
}

// A 226 whose delta came compressed by br or zstd (the A-IM accepts them
// after the delta coding: "IM: vcdiff, zstd") is rebuilt,
// verified, and kept as the base the next delta comes from: the
// compression was of the delta bytes, the instance is the identity.
func TestCodedDeltaResultIsBase(t *testing.T) {
	v1, v2, v3 := hexText(0), hexText(3000), hexText(3100)
	// Not a text type: the origin has no br or zstd variant of the file,
	// whose 200 would be written decoded, and so not kept as a base.
	e := newDeltaEnv(t, "f.bin", v1)
	const aim = "vcdiff, zstd, br"
	compressed := func(r *Request) { r.Delta.IM, r.Delta.NoDictionary = aim, true }
	e.get(t, compressed)
	e.put(t, v2)
	res, out := e.get(t, compressed)
	if res.Status != http.StatusIMUsed || !bytes.Equal(out, v2) || res.Outcome() != verify.Verified || !res.Verdict.Verified(verify.ReprDigest) {
		t.Fatalf("v2: status %d, %d bytes, %s; want a 226 verified by Repr-Digest (warnings %q)", res.Status, len(out), res.Outcome(), warnings(res))
	}
	if im := strings.Join(res.IM, ", "); (im != "vcdiff, br" && im != "vcdiff, zstd") || res.Header.Get("Content-Encoding") != "" {
		t.Fatalf("v2: IM %q, Content-Encoding %q; want the delta compressed by br or zstd, no content coding", im, res.Header.Get("Content-Encoding"))
	}
	if got := e.last().Get("A-IM"); got != aim {
		t.Errorf("A-IM %q, want %q", got, aim)
	}
	vs, err := e.store.Versions(e.url)
	if err != nil || len(vs) == 0 || vs[0].ETag != res.ETag {
		t.Fatalf("versions after the coded 226: %+v, %v; want %s first", vs, err, res.ETag)
	}
	e.put(t, v3)
	res, out = e.get(t, compressed)
	if res.Status != http.StatusIMUsed || !bytes.Equal(out, v3) || res.DeltaBase != vs[0].ETag {
		t.Errorf("v3: status %d, %d bytes, from %s; want a 226 from v2's %s", res.Status, len(out), res.DeltaBase, vs[0].ETag)
	}
}

// A 226 becomes a dictionary only when a digest of the rebuilt instance
// matched and none failed; it is then named by the rebuilt bytes' sha-256.
func TestDictEntryOf226(t *testing.T) {
	sum := sha256.Sum256([]byte("the rebuilt instance"))
	h := http.Header{"Use-As-Dictionary": {`match="/app/*"`}, "Cache-Control": {"no-store, im, max-age=60"}}
	match := func(f string) verify.Check { return verify.Check{Field: f, Algorithm: "sha-256", Result: verify.Match} }
	mismatch := func(f string) verify.Check {
		return verify.Check{Field: f, Algorithm: "sha-256", Result: verify.Mismatch}
	}
	for _, tc := range []struct {
		name   string
		checks []verify.Check
		ok     bool
	}{
		{"Repr-Digest matched", []verify.Check{match(verify.ReprDigest), match(verify.ContentDigest)}, true},
		{"the legacy Digest matched", []verify.Check{match(verify.LegacyDigest)}, true},
		{"only Content-Digest, of the delta", []verify.Check{match(verify.ContentDigest)}, false},
		{"only Content-MD5, of the delta", []verify.Check{match(verify.ContentMD5)}, false},
		{"Repr-Digest mismatched", []verify.Check{mismatch(verify.ReprDigest), match(verify.ContentDigest)}, false},
		{"one of two Repr-Digest members mismatched", []verify.Check{match(verify.ReprDigest), mismatch(verify.ReprDigest)}, false},
		{"nothing checked", nil, false},
	} {
		res := &Result{Status: http.StatusIMUsed, Header: h, URL: "http://127.0.0.1/app/x.js", SHA256: sum[:],
			Verdict: verify.Verdict{Checks: tc.checks}}
		d, got, note, ok := dictEntry(res, time.Now())
		switch {
		case ok != tc.ok:
			t.Errorf("%s: stored %v (note %q); want %v", tc.name, ok, note, tc.ok)
		case ok && (d.SHA256 != hex.EncodeToString(sum[:]) || !bytes.Equal(got, sum[:])):
			t.Errorf("%s: named %s; want the rebuilt bytes' %x", tc.name, d.SHA256, sum)
		case !ok && !strings.Contains(note, "226"):
			t.Errorf("%s: note %q; want why the 226 is not stored", tc.name, note)
		}
	}
}

// A 304 for a cached version reads and hashes it once: its copy's sha-256
// is both the check of the cached bytes and the one held to Repr-Digest
// (cache.Open, which reads it to check it first, is not used). The file
// is settled at once, so that the origin in this process does not hash it
// again to answer the conditional request (its count is the process's).
func TestNotModifiedReadsCacheOnce(t *testing.T) {
	v1 := deltaText(1)
	e := newDeltaEnv(t, "f.txt", v1, server.WithSettle(0))
	e.get(t, nil)
	checked, hashed := cache.Checked(), verify.Hashed("sha-256")
	res, out := e.get(t, nil)
	if res.Strategy != StrategyNotModified || !bytes.Equal(out, v1) || res.Outcome() != verify.Verified {
		t.Fatalf("%s, %d bytes, %s; want not-modified, v1, verified", res.Strategy, len(out), res.Outcome())
	}
	if got := cache.Checked() - checked; got != 0 {
		t.Errorf("cache.Open read %d bytes to check the version first", got)
	}
	if got := verify.Hashed("sha-256") - hashed; got != int64(len(v1)) {
		t.Errorf("sha-256 over %d bytes, want %d: the version once", got, len(v1))
	}
}

// passSink passes bytes on as they come: not a holdingSink.
type passSink struct{ StreamSink }

// Only a sink that holds its bytes back gets a cached version before it is
// checked; any other sink, whatever its type, gets it checked first.
func TestCachedCopyCheckedFirstUnlessHeld(t *testing.T) {
	v1 := deltaText(1)
	e := newDeltaEnv(t, "f.txt", v1)
	e.get(t, nil)
	vs, err := e.store.Versions(e.url)
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions %v, %v", vs, err)
	}
	d := &deltaReceiver{req: &Request{Delta: &Delta{Cache: e.store}}}
	for _, tc := range []struct {
		sink    Sink
		checked bool
	}{
		{&HeldSink{}, false}, {&FileSink{}, false}, {DiscardSink{}, false}, {&DeviceSink{}, false},
		{&StreamSink{}, true}, {&passSink{}, true},
	} {
		before := cache.Checked()
		src, err := d.cached(vs[0], tc.sink)
		if err != nil {
			t.Fatal(err)
		}
		src.Close()
		if got := cache.Checked() > before; got != tc.checked {
			t.Errorf("%T: checked before the copy %v, want %v", tc.sink, got, tc.checked)
		}
	}
}
