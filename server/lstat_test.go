//go:build unix

package server

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/hdig/hdig/fileid"
)

// The one-call Lstat of names at the top of the served directory says
// what os.Root.Lstat says, for every kind of file, and fails as it does.
func TestTopLstatAsRoot(t *testing.T) {
	dir := fixture(t)
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	s, err := New(dir)
	must(t, err)
	defer s.Close()
	for _, name := range []string{"hello.json", "sub", "link-in", "link-out", "fifo", ".secret"} {
		want, err := s.root.Lstat(name)
		must(t, err)
		got, err := s.lstat(name)
		must(t, err)
		if got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() ||
			!got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() {
			t.Errorf("%s: lstat %v %d %v %v, want %v %d %v %v", name, got.Name(), got.Size(), got.Mode(), got.ModTime(),
				want.Name(), want.Size(), want.Mode(), want.ModTime())
		}
		if g, w := fileid.Of(got), fileid.Of(want); g != w || !g.Strong() && runtime.GOOS == "linux" {
			t.Errorf("%s: ID %+v, want %+v (strong)", name, g, w)
		}
	}
	if _, err := s.lstat("missing"); !os.IsNotExist(err) {
		t.Errorf("lstat of a missing name: %v, want not exist", err)
	}
}

// A GET of a file at the top of the directory costs no walk through
// os.Root (one fstatat on Linux); deeper names still take it.
func TestTopGetNoRootWalk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("one-call Lstat on Linux only")
	}
	dir := fixture(t)
	s, ts := start(t, dir, WithSettle(0))
	for range 3 {
		wantTruthful(t, raw(t, ts, "GET", "/hello.json"))
	}
	if n := s.rootLstats.Load(); n != 0 {
		t.Errorf("3 GETs of /hello.json made %d Lstat calls through os.Root, want 0", n)
	}
	wantStatus(t, raw(t, ts, "GET", "/sub/a.txt"), 200)
	if n := s.rootLstats.Load(); n != 1 {
		t.Errorf("a GET of /sub/a.txt made %d Lstat calls through os.Root, want 1 (sub/a.txt; sub is at the top)", n)
	}
}

// plainGet looks its fields up as net/http stores them: canonical.
func TestPlainGetFieldsCanonical(t *testing.T) {
	for _, k := range plainGetFields {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("plainGetFields has %q, canonical %q", k, c)
		}
	}
	r, _ := http.NewRequest("GET", "/", nil)
	r.Header.Set("a-im", "vcdiff")
	if plainGet(r) {
		t.Error("a GET with A-IM is plain")
	}
}

// TestOneSegmentRefusesParents: only a name of one segment inside DIR may
// go to the fstatat on DIR's descriptor.
func TestOneSegmentRefusesParents(t *testing.T) {
	for name, want := range map[string]bool{"a.txt": true, "..a": true, "": false, ".": false, "..": false, "a/b": false, "../x": false} {
		if got := oneSegment(name); got != want {
			t.Errorf("oneSegment(%q) = %v, want %v", name, got, want)
		}
	}
}
