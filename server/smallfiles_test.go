package server

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSmallFileFromMemory: repeated GETs of an unchanged small file open
// it once; a new version (same size, modification time put back) is read
// again, never served from the old bytes.
func TestSmallFileFromMemory(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir)
	p := filepath.Join(dir, "hello.json")
	for range 5 {
		r := raw(t, ts, "GET", "/hello.json")
		wantStatus(t, r, http.StatusOK)
		if string(r.body) != hello {
			t.Fatalf("body %q", r.body)
		}
		wantHeader(t, r, "Repr-Digest", helloRepr)
	}
	if n := s.small.opens.Load(); n != 1 {
		t.Errorf("5 GETs of an unchanged small file opened it %d times, want 1", n)
	}
	fi, err := os.Stat(p)
	must(t, err)
	edited := []byte(hello)
	edited[3] = 'H'
	must(t, os.WriteFile(p, edited, 0o644))
	must(t, os.Chtimes(p, time.Time{}, fi.ModTime()))
	r := raw(t, ts, "GET", "/hello.json")
	if string(r.body) != string(edited) {
		t.Fatalf("after an edit with the mtime restored: body %q", r.body)
	}
	// (Repr-Digest of the new version is the digest store's business: it
	// is keyed by its own version identity.)
	if n := s.small.opens.Load(); n != 2 {
		t.Errorf("opens = %d after an edit, want 2", n)
	}
	// Ranges and HEAD of a file held in memory.
	g := raw(t, ts, "GET", "/hello.json", "Range: bytes=2-6")
	wantStatus(t, g, http.StatusPartialContent)
	if string(g.body) != string(edited[2:7]) {
		t.Errorf("range body %q", g.body)
	}
	h := raw(t, ts, "HEAD", "/hello.json")
	wantHeader(t, h, "Content-Length", "19")
}
