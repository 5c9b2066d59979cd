package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/verify"
)

// waitCTimeTick waits until a file created now gets a change time other
// than ref's, so that an edit made next has a new ctime (the file system's
// clock ticks coarsely). It counts ticks, not a deadline.
func waitCTimeTick(t *testing.T, dir string, ref fileid.ID) {
	t.Helper()
	probe := filepath.Join(t.TempDir(), "probe")
	for tries := 0; tries < 2000; tries++ {
		must(t, os.WriteFile(probe, nil, 0o644))
		if id, err := fileid.Stat(probe); err == nil && id.CTime != ref.CTime {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the change time never moved on")
}

// editKeepingTimes rewrites n bytes of p in place and puts its times back,
// like dd conv=notrunc followed by touch -d.
func editKeepingTimes(t *testing.T, p string, off int64, b []byte) {
	t.Helper()
	fi, err := os.Stat(p)
	must(t, err)
	waitCTimeTick(t, filepath.Dir(p), fileid.Of(fi))
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt(b, off)
	must(t, err)
	must(t, f.Close())
	must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
}

// An in-place edit with size and mtime restored (dd conv=notrunc; touch
// -d), or a same-size copy with the same times (cp -p), is a new version:
// ETag, Repr-Digest and Content-Digest follow the bytes.
func TestInPlaceEditNewDigests(t *testing.T) {
	for _, tc := range []struct{ name, file string }{{"dd", "data.bin"}, {"cp-p", "hello.json"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t)
			_, ts := start(t, dir)
			p := filepath.Join(dir, tc.file)
			old := raw(t, ts, "GET", "/"+tc.file, "Want-Content-Digest: sha-256=1")
			wantStatus(t, old, 200)
			if tc.name == "dd" {
				editKeepingTimes(t, p, 100, []byte("XXXX"))
			} else {
				// cp -p of a same-size file with the same timestamps.
				src := filepath.Join(t.TempDir(), "src")
				b, _ := os.ReadFile(p)
				b[1] ^= 0x20
				must(t, os.WriteFile(src, b, 0o644))
				fi, _ := os.Stat(p)
				must(t, os.Chtimes(src, fi.ModTime(), fi.ModTime()))
				waitCTimeTick(t, dir, fileid.Of(fi))
				must(t, os.WriteFile(p, b, 0o644))
				must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
			}
			now, _ := os.ReadFile(p)
			for range 2 {
				r := raw(t, ts, "GET", "/"+tc.file, "Want-Content-Digest: sha-256=1")
				wantStatus(t, r, 200)
				if r.bodyErr != nil || string(r.body) != string(now) {
					t.Fatalf("body: err %v, %d bytes", r.bodyErr, len(r.body))
				}
				wantHeader(t, r, "Repr-Digest", sfSHA256(now))
				wantHeader(t, r, "Content-Digest", sfSHA256(now))
				if r.Header.Get("ETag") == old.Header.Get("ETag") {
					t.Errorf("ETag %s kept over new bytes", old.Header.Get("ETag"))
				}
			}
		})
	}
}

// A digest that does not cover the bytes read now (an ID that did not
// change, as where mtime lags an open writer) is never sent with a clean
// end: the response is cut, and the next one has the right digest.
func TestStaleDigestCutsResponse(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	fi, err := os.Stat(filepath.Join(dir, "data.bin"))
	must(t, err)
	wrong := verify.Digest{Algorithm: "sha-256", Value: make([]byte, 32)}
	s.cache.get(keyOf("data.bin", fi)).put([]verify.Digest{wrong}, false)
	r := raw(t, ts, "GET", "/data.bin")
	if r.bodyErr == nil && r.Header.Get("Repr-Digest") != sfSHA256(binData) {
		t.Fatalf("clean %d-byte body sent under Repr-Digest %s", len(r.body), r.Header.Get("Repr-Digest"))
	}
	r = raw(t, ts, "GET", "/data.bin")
	if r.bodyErr != nil {
		t.Fatalf("second GET: %v", r.bodyErr)
	}
	wantHeader(t, r, "Repr-Digest", sfSHA256(binData))
}

// A file edited between the header and the body (times put back) is never
// sent with a clean end: with trusted digests the ID check catches it, with untrusted
// ones the hash of the bytes sent. The next GET has the new digests.
func TestEditWhileSendingCutsResponse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		settle time.Duration
		rng    string
	}{{"trusted", 0, ""}, {"untrusted", time.Hour, ""}, {"untrusted range", time.Hour, "Range: bytes=10-5000"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t)
			s, ts := start(t, dir)
			s.cfg.settle = tc.settle
			p := filepath.Join(dir, "data.bin")
			first := raw(t, ts, "GET", "/data.bin")
			if first.bodyErr != nil {
				t.Fatal(first.bodyErr)
			}
			guardHook = func() { editKeepingTimes(t, p, 2000, []byte("YYYY")) }
			defer func() { guardHook = nil }()
			var hdr []string
			if tc.rng != "" {
				hdr = append(hdr, tc.rng)
			}
			r := raw(t, ts, "GET", "/data.bin", hdr...)
			guardHook = nil
			if r.bodyErr == nil {
				t.Fatalf("clean %d-byte body over a file edited while sent (Repr-Digest %s)", len(r.body), r.Header.Get("Repr-Digest"))
			}
			now, _ := os.ReadFile(p)
			r = raw(t, ts, "GET", "/data.bin")
			if r.bodyErr != nil {
				t.Fatal(r.bodyErr)
			}
			wantHeader(t, r, "Repr-Digest", sfSHA256(now))
		})
	}
}

// Digests hashed before the file settled are hashed again once it has,
// and then trusted.
func TestUntrustedDigestsHashedAgainWhenSettled(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	s.cfg.settle = time.Hour
	raw(t, ts, "GET", "/data.bin", "Range: bytes=0-9")
	before := hashPasses.Load()
	raw(t, ts, "GET", "/data.bin", "Range: bytes=0-9")
	if n := hashPasses.Load() - before; n != 0 {
		t.Fatalf("unsettled file hashed %d more times", n)
	}
	s.cfg.settle = 0
	for range 3 {
		raw(t, ts, "GET", "/data.bin", "Range: bytes=0-9")
	}
	if n := hashPasses.Load() - before; n != 1 {
		t.Fatalf("settled file hashed %d times, want 1", n)
	}
}

// A plain GET of a file that has settled confirms its untrusted digests by
// the hash of the bytes it sends, instead of hashing the file again first.
func TestPlainGetConfirmsSettledDigests(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	s.cfg.settle = time.Hour
	raw(t, ts, "GET", "/data.bin")
	before := hashPasses.Load()
	s.cfg.settle = 0
	r := raw(t, ts, "GET", "/data.bin")
	if r.bodyErr != nil {
		t.Fatal(r.bodyErr)
	}
	raw(t, ts, "HEAD", "/data.bin")
	raw(t, ts, "GET", "/data.bin", "Range: bytes=0-10")
	if n := hashPasses.Load() - before; n != 0 {
		t.Errorf("settled file hashed %d more times, want 0 (confirmed by the GET)", n)
	}
}

// Every digest a 200 sends is checked against the bytes sent, also one that
// only Content-Digest uses.
func TestStaleContentDigestCutsResponse(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	s.cfg.settle = time.Hour
	fi, err := os.Stat(filepath.Join(dir, "data.bin"))
	must(t, err)
	good := sha256.Sum256(binData)
	s.cache.get(keyOf("data.bin", fi)).put([]verify.Digest{
		{Algorithm: "sha-256", Value: good[:]},
		{Algorithm: "sha-512", Value: make([]byte, 64)},
	}, false)
	r := raw(t, ts, "GET", "/data.bin", "Want-Content-Digest: sha-512=1")
	if r.bodyErr == nil {
		t.Fatalf("clean body sent under Content-Digest %s", r.Header.Get("Content-Digest"))
	}
}

// Untrusted digests (hashed before the file settled, or over bytes since
// changed under the same ID) decide nothing without the bytes being
// hashed again: no 304 or If-Match success over a stale ETag, no HEAD
// with digests a GET of the same bytes would not have; a GET's 200 is
// checked by the guard, but these send no body for it to check.
func TestUntrustedDigestsNotUsedUnchecked(t *testing.T) {
	wrong := verify.Digest{Algorithm: "sha-256", Value: make([]byte, 32)}
	stale := etagFor(wrong.Value)
	for _, tc := range []struct {
		name, method string
		hdr          []string
		check        func(t *testing.T, r *rawResponse)
	}{
		{"if-none-match", "GET", []string{"If-None-Match: " + stale}, func(t *testing.T, r *rawResponse) {
			if r.StatusCode == 304 {
				t.Fatalf("304 to the stale ETag %s", stale)
			}
		}},
		{"head", "HEAD", nil, func(t *testing.T, r *rawResponse) {
			wantHeader(t, r, "Repr-Digest", sfSHA256(binData))
		}},
		{"put if-match", "PUT", []string{"If-Match: " + stale}, func(t *testing.T, r *rawResponse) {
			wantStatus(t, r, http.StatusPreconditionFailed)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t)
			s, ts := start(t, dir, WithWritable())
			s.cfg.settle = time.Hour
			p := filepath.Join(dir, "data.bin")
			fi, err := os.Stat(p)
			must(t, err)
			s.cache.get(keyOf("data.bin", fi)).put([]verify.Digest{wrong}, false)
			var r *rawResponse
			if tc.method == "PUT" {
				r = upload(t, ts, "PUT", "/data.bin", []byte("replaced"), tc.hdr...)
			} else {
				r = raw(t, ts, tc.method, "/data.bin", tc.hdr...)
			}
			tc.check(t, r)
			if got, _ := os.ReadFile(p); string(got) != string(binData) {
				t.Errorf("data.bin replaced under a stale If-Match")
			}
		})
	}
}

// Requests answered on untrusted digests (HEAD, conditional) hash them
// again, but a pass begun after a request arrived serves it: HEADs that
// arrive together, queued behind one pass on the entry's lock, share it
// instead of hashing the file once each; one arriving after it gets its
// own.
func TestUncheckedRequestsShareAPass(t *testing.T) {
	e := newEntry()
	e.put([]verify.Digest{{Algorithm: "sha-256", Value: make([]byte, 32)}}, false)
	arrive := func() *proof { // an unsettled file's HEAD, arriving now
		return &proof{same: func() bool { return true }, unchecked: true, since: e.passes.Load()}
	}
	want := sha256.Sum256(binData)
	digest := func(pf *proof) {
		t.Helper()
		ds, trusted, err := e.digests(context.Background(), bytes.NewReader(binData), int64(len(binData)), []verify.Algorithm{sha256Alg}, pf)
		must(t, err)
		if trusted || string(ds[0].Value) != string(want[:]) {
			t.Fatalf("HEAD answered with a stale sha-256 (trusted %v)", trusted)
		}
	}
	before := hashPasses.Load()
	first, second := arrive(), arrive()
	digest(first)
	digest(second)
	if n := hashPasses.Load() - before; n != 1 {
		t.Errorf("two HEADs that arrived together made %d passes, want 1", n)
	}
	digest(arrive())
	if n := hashPasses.Load() - before; n != 2 {
		t.Errorf("after a later HEAD: %d passes, want 2", n)
	}
}
