package server

import (
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func sfSHA512(b []byte) string {
	s := sha512.Sum512(b)
	return "sha-512=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"
}

// bigFile serves a 4 MiB binary file made of binData.
func bigFile(t *testing.T, opts ...Option) (*Server, *httptest.Server, []byte) {
	t.Helper()
	dir := t.TempDir()
	var b []byte
	for range 4 {
		b = append(b, binData...)
	}
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), b, 0o644))
	s, ts := start(t, dir, opts...)
	return s, ts, b
}

// TestRangeDigestReused: repeated requests for the same range with
// Want-Content-Digest hash it once.
func TestRangeDigestReused(t *testing.T) {
	s, ts, b := bigFile(t, WithSettle(0)) // settled: its digests are trusted
	for range 5 {
		r := raw(t, ts, "GET", "/big.bin", "Range: bytes=1000-2098151", "Want-Content-Digest: sha-512=9")
		wantStatus(t, r, http.StatusPartialContent)
		wantHeader(t, r, "Content-Digest", sfSHA512(b[1000:2098152]))
	}
	if got := s.hashing.hashed.Load(); got != 2<<20 {
		t.Errorf("hashed %d bytes for 5 requests of one 2 MiB range, want %d", got, 2<<20)
	}
}

// A range digest hashed while the file's digests are untrusted (changed
// within the settle window) may describe other bytes than the ETag names:
// it is not kept for later requests.
func TestUnsettledRangeDigestNotReused(t *testing.T) {
	s, ts, b := bigFile(t, WithSettle(time.Hour))
	for range 2 {
		r := raw(t, ts, "GET", "/big.bin", "Range: bytes=1000-2098151", "Want-Content-Digest: sha-512=9")
		wantStatus(t, r, http.StatusPartialContent)
		wantHeader(t, r, "Content-Digest", sfSHA512(b[1000:2098152]))
	}
	if got := s.hashing.hashed.Load(); got != 2*(2<<20) {
		t.Errorf("hashed %d bytes for 2 requests of one 2 MiB range of an unsettled file, want %d (no reuse)", got, 2*(2<<20))
	}
}

// TestRangeDigestBudget: when the client's or the server's hashing budget
// is spent, a large range is sent without Content-Digest (not queued);
// small ranges are still hashed; the bytes and Repr-Digest are unchanged.
func TestRangeDigestBudget(t *testing.T) {
	s, ts, b := bigFile(t)
	for _, holder := range []struct {
		client string
		n      int64
	}{{"127.0.0.1", clientHashBudget}, {"192.0.2.9", s.hashing.limit}} {
		if !s.hashing.reserve(holder.client, holder.n) {
			t.Fatalf("cannot reserve %d for %s", holder.n, holder.client)
		}
		for i, rg := range []string{"bytes=0-2097151", "bytes=0-9,3000000-4194303"} {
			r := raw(t, ts, "GET", "/big.bin", "Range: "+rg, "Want-Content-Digest: sha-256")
			wantStatus(t, r, http.StatusPartialContent)
			if r.Header.Get("Content-Digest") != "" || r.Trailer.Get("Content-Digest") != "" {
				t.Errorf("%s holds the budget: %s got Content-Digest", holder.client, rg)
			}
			if i == 0 && string(r.body) != string(b[:2<<20]) {
				t.Error("wrong bytes")
			}
			wantHeader(t, r, "Repr-Digest", sfSHA256(b))
		}
		small := raw(t, ts, "GET", "/big.bin", "Range: bytes=10-65545", "Want-Content-Digest: sha-256")
		wantHeader(t, small, "Content-Digest", sfSHA256(b[10:65546]))
		s.hashing.release(holder.client, holder.n)
		r := raw(t, ts, "GET", "/big.bin", "Range: bytes=1-2097152", "Want-Content-Digest: sha-256")
		wantHeader(t, r, "Content-Digest", sfSHA256(b[1:2097153]))
	}
	if s.hashing.used != 0 || len(s.hashing.byClient) != 0 {
		t.Errorf("budget not returned: %d bytes, %v", s.hashing.used, s.hashing.byClient)
	}
}

// A range hashed for a trusted version is kept under its ETag only when
// the file is still that version after the range was read: a file edited
// between its ETag's pass and the range's would otherwise leave the new
// bytes' range digest under the old ETag, and once the file is back to
// the old bytes (git checkout of one branch, then the other, then back),
// a range of them would be sent with that Content-Digest, the guard
// (which checks a trusted version by its ID) passing it.
func TestRangeDigestNotKeptAcrossEdit(t *testing.T) {
	s, ts, b := bigFile(t, WithSettle(0))
	p := filepath.Join(s.Dir(), "big.bin")
	const rg = "Range: bytes=1000-2098151"
	want := sfSHA512(b[1000:2098152])
	wantStatus(t, raw(t, ts, "GET", "/big.bin", "Want-Repr-Digest: sha-256"), http.StatusOK) // A, trusted
	guardHook = func() { editKeepingTimes(t, p, 5000, []byte("BBBB")) }
	r := raw(t, ts, "GET", "/big.bin", rg, "Want-Content-Digest: sha-512=9")
	guardHook = nil
	if r.bodyErr == nil && r.Header.Get("Content-Digest") != want {
		t.Fatalf("a range of the edited file ended cleanly with Content-Digest %q", r.Header.Get("Content-Digest"))
	}
	editKeepingTimes(t, p, 5000, b[5000:5004]) // the bytes of A again: a new version
	r = raw(t, ts, "GET", "/big.bin", rg, "Want-Content-Digest: sha-512=9")
	wantStatus(t, r, http.StatusPartialContent)
	if string(r.body) != string(b[1000:2098152]) {
		t.Fatal("the range is not A's")
	}
	wantHeader(t, r, "Content-Digest", want)
}
