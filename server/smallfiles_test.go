package server

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/verify"
)

// wantTruthful checks that r's ETag, Repr-Digest (and Content-Digest of a
// 200) are the digests of the body it carried.
func wantTruthful(t *testing.T, r *rawResponse) {
	t.Helper()
	wantStatus(t, r, http.StatusOK)
	if r.bodyErr != nil {
		t.Fatalf("body cut: %v", r.bodyErr)
	}
	sum := sha256.Sum256(r.body)
	wantHeader(t, r, "ETag", etagFor(sum[:]))
	wantHeader(t, r, "Repr-Digest", sfSHA256(r.body))
	if cd := r.Header.Get("Content-Digest"); cd != "" && cd != sfSHA256(r.body) {
		t.Errorf("Content-Digest = %q, want %q", cd, sfSHA256(r.body))
	}
}

// Repeated GETs of an unchanged, settled small file open it once; an edit
// with size and modification time put back is a new version, read again
// and never answered with the old bytes or their digests.
func TestSmallFileFromMemory(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	s.cfg.settle = 0
	p := filepath.Join(dir, "hello.json")
	for range 5 {
		r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=1")
		wantTruthful(t, r)
		if string(r.body) != hello {
			t.Fatalf("body %q", r.body)
		}
		wantHeader(t, r, "Repr-Digest", helloRepr)
	}
	if n := s.small.opens.Load(); n != 1 {
		t.Errorf("5 GETs of an unchanged small file opened it %d times, want 1", n)
	}
	editKeepingTimes(t, p, 3, []byte("H"))
	for range 3 {
		r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=1")
		wantTruthful(t, r)
		if string(r.body[3]) != "H" {
			t.Fatalf("after an edit with the mtime restored: body %q", r.body)
		}
	}
	if n := s.small.opens.Load(); n != 2 {
		t.Errorf("opens = %d after an edit, want 2", n)
	}
	g := raw(t, ts, "GET", "/hello.json", "Range: bytes=2-6")
	wantStatus(t, g, http.StatusPartialContent)
	if string(g.body) != "hHllo" {
		t.Errorf("range body %q", g.body)
	}
	h := raw(t, ts, "HEAD", "/hello.json")
	wantHeader(t, h, "Content-Length", "19")
}

// A file younger than the settle window is never kept in memory: a write
// in the same clock tick could leave its ID as it was.
func TestSmallFileUnsettledNotKept(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	s.cfg.settle = time.Hour
	for range 3 {
		wantTruthful(t, raw(t, ts, "GET", "/hello.json"))
	}
	if n := s.small.opens.Load(); n != 3 {
		t.Errorf("3 GETs of an unsettled file opened it %d times, want 3", n)
	}
	if n := s.small.lru.Len(); n != 0 {
		t.Errorf("%d snapshots kept of an unsettled file, want 0", n)
	}
}

// Digests sent with bytes from memory are those bytes' digests: untrusted
// digests cached for the same file version (as if hashed from the disk
// while it changed) are never sent with them.
func TestSmallFileDigestsFromMemoryBytes(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	s.cfg.settle = 0
	wantTruthful(t, raw(t, ts, "GET", "/hello.json"))
	id, err := fileid.Stat(filepath.Join(dir, "hello.json"))
	must(t, err)
	if !s.small.has("hello.json", id) {
		t.Fatal("no snapshot of a settled small file after a GET")
	}
	key := fileKey{name: "hello.json", id: id}
	s.cache.drop(key)
	wrong := make([]byte, 32)
	s.cache.get(key).put([]verify.Digest{{Algorithm: "sha-256", Value: wrong}}, false)
	opens := s.small.opens.Load()
	for _, h := range []string{"Want-Content-Digest: sha-256=1", "Want-Repr-Digest: sha-512=1, sha-256=2"} {
		r := raw(t, ts, "GET", "/hello.json", h)
		wantTruthful(t, r)
		if string(r.body) != hello {
			t.Fatalf("body %q", r.body)
		}
	}
	if n := s.small.opens.Load() - opens; n != 0 {
		t.Errorf("the file was opened %d times, want 0 (served from memory)", n)
	}
}

// The symlink and hidden-path checks run on every request, also for a path
// whose old version is in memory.
func TestSmallFileLinkChecksKept(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	s.cfg.settle = 0
	wantTruthful(t, raw(t, ts, "GET", "/hello.json"))
	wantTruthful(t, raw(t, ts, "GET", "/hello.json"))
	p := filepath.Join(dir, "hello.json")
	must(t, os.Remove(p))
	must(t, os.Symlink(".secret", p))
	r := raw(t, ts, "GET", "/hello.json")
	wantStatus(t, r, http.StatusNotFound)
}

// A working set larger than the memory for small files does not evict
// and read again in a loop: a snapshot evicted is taken again only when
// it fits without evicting another.
func TestSmallFileEvictedNotRetaken(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		must(t, os.WriteFile(filepath.Join(dir, n), make([]byte, 1024), 0o644))
	}
	s, ts := start(t, dir, WithSettle(0))
	s.small.limit = 2048 // two of them
	for _, n := range []string{"a", "b", "c", "a", "b", "c"} {
		wantTruthful(t, raw(t, ts, "GET", "/"+n))
	}
	if n := s.small.takes.Load(); n != 3 {
		t.Errorf("%d snapshots taken for 3 files cycling through memory for 2, want 3", n)
	}
	// Room again: an evicted file is taken once more.
	s.small.mu.Lock()
	s.small.limit = 4096
	s.small.mu.Unlock()
	wantTruthful(t, raw(t, ts, "GET", "/a"))
	if n := s.small.takes.Load(); n != 4 {
		t.Errorf("%d snapshots taken once there was room, want 4", n)
	}
}

// A plain GET answered from memory has the header and body of the same
// GET answered from the file by http.ServeContent.
func TestSmallFileSameResponseFromMemory(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir, WithSettle(0))
	for _, name := range []string{"/hello.json", "/sub/a.txt", "/data.bin"} {
		disk := raw(t, ts, "GET", name, "Want-Content-Digest: sha-256=1")
		opens := s.small.opens.Load()
		mem := raw(t, ts, "GET", name, "Want-Content-Digest: sha-256=1")
		if fromDisk := s.small.opens.Load() - opens; name != "/data.bin" && fromDisk != 0 {
			t.Fatalf("%s: the second GET opened the file", name)
		}
		disk.Header.Del("Date")
		mem.Header.Del("Date")
		if fmt.Sprint(disk.Header) != fmt.Sprint(mem.Header) || string(disk.body) != string(mem.body) {
			t.Errorf("%s from memory:\n%v\nfrom the file:\n%v", name, mem.Header, disk.Header)
		}
	}
}
