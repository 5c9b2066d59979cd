package server

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/fileid"
)

// A state directory inside the served one is refused, through symlinks
// too.
func TestStateDirInsideRefused(t *testing.T) {
	dir := fixture(t)
	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(filepath.Join(dir, "sub"), link))
	for _, sd := range []string{dir, filepath.Join(dir, "state"), filepath.Join(link, "state")} {
		if s, err := New(dir, WithStateDir(sd)); err == nil {
			s.Close()
			t.Errorf("state dir %s inside %s accepted", sd, dir)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("error has several lines: %q", err)
		}
	}
}

// Defence in depth: should a private directory be reachable inside the
// served one all the same (a bind mount), nothing under it is listed,
// served or written.
func TestPrivateDirNeverServed(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir, WithWritable())
	id, err := fileid.Stat(filepath.Join(dir, "sub"))
	must(t, err)
	s.private = append(s.private, id)
	wantStatus(t, raw(t, ts, "GET", "/sub/a.txt"), 404)
	wantStatus(t, raw(t, ts, "GET", "/sub/"), 404)
	r := upload(t, ts, "PUT", "/sub/a.txt", []byte("x"))
	if r.StatusCode < 400 {
		t.Errorf("PUT under a private dir: %d", r.StatusCode)
	}
	upload(t, ts, "PUT", "/sub/new.txt", []byte("x"))
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "a.txt")); string(b) != "a\n" {
		t.Errorf("file under a private dir changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "new.txt")); err == nil {
		t.Error("file created under a private dir")
	}
	l := raw(t, ts, "GET", "/")
	if strings.Contains(string(l.body), "sub/") {
		t.Errorf("listing shows the private dir:\n%s", l.body)
	}
}

// Listings leave out symlinks whose targets are refused.
func TestListingHidesRefusedLinks(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir)
	l := raw(t, ts, "GET", "/")
	for _, n := range []string{"link-out", "link-dot", "link-abs"} {
		if strings.Contains(string(l.body), n) {
			t.Errorf("listing shows %s:\n%s", n, l.body)
		}
	}
	if !strings.Contains(string(l.body), "link-in") {
		t.Errorf("listing lost link-in:\n%s", l.body)
	}
}

// The variants directory removed while the server runs is made again on
// demand: encoded responses do not fail until a restart.
func TestVariantsDirRecreated(t *testing.T) {
	dir, state := fixture(t), t.TempDir()
	_, ts := start(t, dir, WithStateDir(state))
	must(t, os.RemoveAll(filepath.Join(state, "variants")))
	r := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip")
	wantStatus(t, r, 200)
	wantHeader(t, r, "Content-Encoding", "gzip")
	wantHeader(t, r, "Repr-Digest", sfSHA256(r.body))
}

// A variant file changed in the state directory (as an upload could when
// it was inside DIR) is not served after a restart: variants are keyed by
// the sha-256 of both ends and checked when first read.
func TestTamperedVariantNotServed(t *testing.T) {
	dir, state := fixture(t), t.TempDir()
	_, ts := start(t, dir, WithStateDir(state))
	wantStatus(t, raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip"), 200)
	files, _ := filepath.Glob(filepath.Join(state, "variants", "*"))
	if len(files) == 0 {
		t.Fatal("no variant on disk")
	}
	var evil bytes.Buffer
	zw := gzip.NewWriter(&evil)
	zw.Write([]byte("evil\n"))
	zw.Close()
	for _, f := range files {
		must(t, os.WriteFile(f, evil.Bytes(), 0o644))
	}
	_, ts2 := start(t, dir, WithStateDir(state))
	r := raw(t, ts2, "GET", "/text.txt", "Accept-Encoding: gzip")
	wantStatus(t, r, 200)
	body := r.body
	if r.Header.Get("Content-Encoding") == "gzip" {
		body = decode(t, "gzip", r.body)
	}
	if string(body) != text {
		t.Errorf("served %q instead of text.txt", body[:min(len(body), 20)])
	}
}

// A variant file changed in place while the server runs (same size, its
// hash already cached) is not served under the digests of its old bytes:
// its version is part of the key its digests are cached under, so it is
// hashed again, found not to be what its name says, and dropped.
func TestVariantChangedInPlaceNotServed(t *testing.T) {
	dir, state := fixture(t), t.TempDir()
	_, ts := start(t, dir, WithStateDir(state))
	r := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip", "Want-Content-Digest: sha-256")
	wantHeader(t, r, "Content-Encoding", "gzip")
	files, _ := filepath.Glob(filepath.Join(state, "variants", "*"))
	if len(files) != 1 {
		t.Fatalf("variant files: %v", files)
	}
	b, err := os.ReadFile(files[0])
	must(t, err)
	b[len(b)/2] ^= 0xff
	f, err := os.OpenFile(files[0], os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt(b, 0)
	must(t, err)
	must(t, f.Close())
	r = raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip", "Want-Content-Digest: sha-256")
	wantStatus(t, r, 200)
	wantHeader(t, r, "Content-Digest", sfSHA256(r.body))
	if r.Header.Get("Content-Encoding") == "" {
		wantHeader(t, r, "Repr-Digest", sfSHA256(r.body))
	}
}
