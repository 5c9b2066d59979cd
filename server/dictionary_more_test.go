package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/internal/peertest"
)

// A dcb response is a representation like the others: its own ETag, a
// Content-Digest over the body, ranges of the encoded bytes, 304 on its
// ETag, and no Unencoded-Digest on a response without the body.
func TestDictionaryRepresentation(t *testing.T) {
	_, ts, avail, _ := dictFixture(t)
	hs := []string{"Accept-Encoding: dcb", "Available-Dictionary: " + avail}
	id := raw(t, ts, "GET", "/assets/app.js")
	full := raw(t, ts, "GET", "/assets/app.js", append(hs, "Want-Content-Digest: sha-256=1")...)
	wantHeader(t, full, "Content-Encoding", "dcb")
	wantHeader(t, full, "Content-Digest", sfSHA256(full.body))
	if full.Header.Get("ETag") == id.Header.Get("ETag") || full.Header.Get("ETag") == "" {
		t.Fatalf("dcb ETag %q, identity's %q: want distinct", full.Header.Get("ETag"), id.Header.Get("ETag"))
	}
	wantHeader(t, full, "Use-As-Dictionary", `match="/assets/*", match-dest=(), id="/assets/app.js", type=raw`)

	part := raw(t, ts, "GET", "/assets/app.js", append(hs, "Range: bytes=0-39")...)
	wantStatus(t, part, http.StatusPartialContent)
	wantHeader(t, part, "Content-Encoding", "dcb")
	if !bytes.Equal(part.body, full.body[:40]) {
		t.Fatalf("range 0-39: want the encoded body's first 40 bytes")
	}
	wantHeader(t, part, "Repr-Digest", sfSHA256(full.body))

	multi := raw(t, ts, "GET", "/assets/app.js", append(hs, "Range: bytes=0-1,4-5")...)
	wantStatus(t, multi, http.StatusOK) // as for gzip, br and zstd variants
	if !bytes.Equal(multi.body, full.body) {
		t.Fatal("multi-range on dcb: want the whole encoded body")
	}

	nm := raw(t, ts, "GET", "/assets/app.js", append(hs, "If-None-Match: "+full.Header.Get("ETag"))...)
	wantStatus(t, nm, http.StatusNotModified)

	bad := raw(t, ts, "GET", "/assets/app.js", append(hs, "Range: bytes=99999-")...)
	wantStatus(t, bad, http.StatusRequestedRangeNotSatisfiable)
	wantHeader(t, bad, "Unencoded-Digest", "")

	head := raw(t, ts, "HEAD", "/assets/app.js", hs...)
	wantHeader(t, head, "Content-Encoding", "dcb")
	wantHeader(t, head, "Unencoded-Digest", sfSHA256([]byte(dictV2)))
}

// The encode is made once per (file content, coding, dictionary).
func TestDictionaryEncodedOnce(t *testing.T) {
	_, ts, avail, _ := dictFixture(t)
	before := dictEncodes.Load()
	for range 3 {
		r := raw(t, ts, "GET", "/assets/app.js", "Accept-Encoding: dcz", "Available-Dictionary: "+avail)
		wantHeader(t, r, "Content-Encoding", "dcz")
	}
	if n := dictEncodes.Load() - before; n != 1 {
		t.Fatalf("encodes for three requests: want 1, got %d", n)
	}
}

// An encode that does not decode to the file is neither kept nor sent.
func TestDictionaryEncodeChecked(t *testing.T) {
	_, ts, avail, _ := dictFixture(t)
	dictEncodeTamper = func(b []byte) []byte {
		b = bytes.Clone(b)
		b[len(b)-3] ^= 0xFF
		return b
	}
	t.Cleanup(func() { dictEncodeTamper = nil })
	r := raw(t, ts, "GET", "/assets/app.js", "Accept-Encoding: dcb", "Available-Dictionary: "+avail)
	wantStatus(t, r, http.StatusOK)
	wantHeader(t, r, "Content-Encoding", "")
	if string(r.body) != dictV2 {
		t.Fatal("want the identity of v2")
	}
}

// A kept dictionary whose bytes changed on disk is not used.
func TestDictionaryBlobChanged(t *testing.T) {
	s, ts, avail, _ := dictFixture(t)
	store := s.dict.store.(*memStore)
	for _, vs := range store.kept {
		for _, p := range vs {
			must(t, os.WriteFile(p, []byte(strings.ToUpper(dictV1)), 0o600))
		}
	}
	r := raw(t, ts, "GET", "/assets/app.js", "Accept-Encoding: dcz", "Available-Dictionary: "+avail)
	wantHeader(t, r, "Content-Encoding", "")
}

// A file above syncBuildMax is encoded in the background: identity (or
// the usual coding) meanwhile, the dictionary coding once built.
func TestDictionaryLargeInBackground(t *testing.T) {
	big1 := strings.Repeat(dictV1, 1+syncBuildMax/len(dictV1))
	big2 := strings.Repeat(dictV2, 1+syncBuildMax/len(dictV2))
	_, second := dictionaryInBackground(t, "big.js", big1, big2, "dcb")
	got, err := dictionary.Decode("dcb", second.body, []byte(big1), dictionary.Limits{})
	must(t, err)
	if string(got) != big2 {
		t.Fatal("decoded dcb is not the file")
	}
}

// A dictionary coding of a file above syncDictMax (but within
// syncBuildMax) is built in the background too: Brotli at quality 11 and
// zstd's best level take most of a second for 1 MiB, not milliseconds.
func TestDictionaryMidSizeInBackground(t *testing.T) {
	mid1 := strings.Repeat(dictV1, 1+syncDictMax/len(dictV1))
	mid2 := strings.Repeat(dictV2, 1+syncDictMax/len(dictV2))
	if len(mid2) > syncBuildMax {
		t.Fatalf("test file of %d bytes: want at most syncBuildMax", len(mid2))
	}
	ts, _ := dictionaryInBackground(t, "mid.js", mid1, mid2, "dcz")
	// A plain compression of the same file is still made in the request.
	zr := raw(t, ts, "GET", "/assets/mid.js", "Accept-Encoding: zstd")
	wantHeader(t, zr, "Content-Encoding", "zstd")
}

// dictionaryInBackground serves /assets/NAME as v1 then v2 and asks for
// v2 in coding against v1: the first answer is not coded, one build runs
// in the background, the answer after it is coded. It returns the server
// and that answer.
func dictionaryInBackground(t *testing.T, name, v1, v2, coding string) (*httptest.Server, *rawResponse) {
	t.Helper()
	root := t.TempDir()
	file := filepath.Join(root, "assets", name)
	must(t, os.MkdirAll(filepath.Dir(file), 0o755))
	must(t, os.WriteFile(file, []byte(v1), 0o644))
	s, ts := start(t, root, WithDelta(newMemStore(t)), WithDictionary("/assets/*"))
	raw(t, ts, "GET", "/assets/"+name)
	must(t, os.WriteFile(file, []byte(v2), 0o644))
	avail := dictionary.FormatAvailableDictionary(dictionary.HashOf([]byte(v1)))
	hs := []string{"Accept-Encoding: " + coding, "Available-Dictionary: " + avail}
	first := raw(t, ts, "GET", "/assets/"+name, hs...)
	wantHeader(t, first, "Content-Encoding", "")
	s.gate.bg.Wait()
	if s.gate.builds != 1 {
		t.Fatalf("background builds: want 1, got %d", s.gate.builds)
	}
	second := raw(t, ts, "GET", "/assets/"+name, hs...)
	wantHeader(t, second, "Content-Encoding", coding)
	return ts, second
}

// C zstd decodes the server's dcz after its 40-byte header with the
// dictionary the header names.
func TestDictionaryZstdCLI(t *testing.T) {
	zstd := peertest.Need(t, "zstd")
	_, ts, avail, _ := dictFixture(t)
	r := raw(t, ts, "GET", "/assets/app.js", "Accept-Encoding: dcz", "Available-Dictionary: "+avail)
	wantHeader(t, r, "Content-Encoding", "dcz")
	h := dictionary.HashOf([]byte(dictV1))
	if want := append([]byte{0x5E, 0x2A, 0x4D, 0x18, 0x20, 0, 0, 0}, h[:]...); !bytes.Equal(r.body[:40], want) {
		t.Fatalf("dcz header: want %x, got %x", want, r.body[:40])
	}
	dir := t.TempDir()
	dict, frame := filepath.Join(dir, "dict"), filepath.Join(dir, "frame.zst")
	must(t, os.WriteFile(dict, []byte(dictV1), 0o600))
	must(t, os.WriteFile(frame, r.body[40:], 0o600))
	out, err := exec.Command(zstd, "-q", "-d", "-c", "-D", dict, frame).Output()
	if err != nil {
		t.Fatalf("zstd -d -D dict: %v", err)
	}
	if string(out) != dictV2 {
		t.Fatalf("zstd -d: %d bytes, want v2's %d", len(out), len(dictV2))
	}
	// The whole body too: stock zstd skips the skippable frame.
	must(t, os.WriteFile(frame, r.body, 0o600))
	if out, err := exec.Command(zstd, "-q", "-d", "-c", "-D", dict, frame).Output(); err != nil || string(out) != dictV2 {
		t.Fatalf("zstd -d on the whole dcz body: %v, %d bytes", err, len(out))
	}
}

// TestDictionaryFreshness: a response offered as a dictionary is fresh
// for the dictionary max age (Cache-Control: max-age), since a client
// keeps and uses a dictionary only while it is fresh (RFC 9842 §2.1.3;
// Chromium stores none from a response without it). WithDictionaryMaxAge(0)
// sends no Cache-Control; a file outside the patterns never gets one.
func TestDictionaryFreshness(t *testing.T) {
	_, ts, _, _ := dictFixture(t)
	r := raw(t, ts, "GET", "/assets/app.js")
	wantHeader(t, r, "Cache-Control", "max-age=3600")
	r = raw(t, ts, "GET", "/other/app.js")
	wantHeader(t, r, "Cache-Control", "")
	_, ts0, _, _ := dictFixture(t, WithDictionaryMaxAge(0))
	r = raw(t, ts0, "GET", "/assets/app.js")
	wantHeader(t, r, "Use-As-Dictionary", `match="/assets/*", match-dest=(), id="/assets/app.js", type=raw`)
	wantHeader(t, r, "Cache-Control", "")
}

// Unencoded-Digest is over the bytes a dcb body decodes to. A file
// rewritten in place (same size) after the variant was built from it must
// not have another algorithm (here sha-512, hashed from the file as it is
// now) vouch for the new bytes beside a body that decodes to the old.
func TestDictionaryUnencodedDigestFileRewritten(t *testing.T) {
	_, ts, avail, root := dictFixture(t, WithSettle(0))
	p := filepath.Join(root, "assets/app.js")
	changed := []byte(strings.ToUpper(dictV2))
	dictEncodeTamper = func(b []byte) []byte {
		must(t, os.WriteFile(p, changed, 0o644)) // after the variant read the file
		return b
	}
	t.Cleanup(func() { dictEncodeTamper = nil })
	r := raw(t, ts, "GET", "/assets/app.js", "Accept-Encoding: dcb", "Available-Dictionary: "+avail,
		"Want-Repr-Digest: sha-512=10")
	wantHeader(t, r, "Content-Encoding", "dcb")
	got, err := dictionary.Decode("dcb", r.body, []byte(dictV1), dictionary.Limits{})
	must(t, err)
	if string(got) != dictV2 {
		t.Fatal("the dcb body does not decode to the version it was built from")
	}
	if u := r.Header.Get("Unencoded-Digest"); u != sfSHA256(got) {
		t.Fatalf("Unencoded-Digest = %q: want %q, the sha-256 of the bytes the body decodes to (%q is the rewritten file's sha-512)",
			u, sfSHA256(got), sfSHA512(changed))
	}
}
