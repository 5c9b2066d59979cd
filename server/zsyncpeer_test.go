package server

import (
	"bytes"
	"context"
	"github.com/hdig/hdig/internal/peertest"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// peer returns the path of a Debian peer binary. Without it the test is
// skipped, except in CI (CI set), where it fails.
func peer(t *testing.T, name string) string {
	return peertest.Need(t, name)
}

// zsyncRequestLimit bounds the requests zsync may make: a 1 MiB file with
// a dozen scattered edits needs a handful. zsync 0.6.2 against a server
// without the CRLF before the first multipart boundary asks again forever.
const zsyncRequestLimit = 64

// TestZsyncClient: Debian's zsync fetches a changed file from the server
// with a .zsync made by zsyncmake, using multi-range requests, and gets
// the right bytes within a bounded number of requests.
func TestZsyncClient(t *testing.T) {
	zsync, zsyncmake := peer(t, "zsync"), peer(t, "zsyncmake")
	dir, work := t.TempDir(), t.TempDir()
	nw := bytes.Clone(binData)
	for i := 0; i < 12; i++ {
		copy(nw[i*83_000+777:], "a scattered edit")
	}
	must(t, os.WriteFile(filepath.Join(dir, "f.bin"), nw, 0o644))
	old := filepath.Join(work, "old.bin")
	must(t, os.WriteFile(old, binData, 0o644))

	s, err := New(dir)
	must(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var requests, multi atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) > zsyncRequestLimit {
			cancel() // stops zsync
			http.Error(w, "request limit", http.StatusServiceUnavailable)
			return
		}
		if bytes.Contains([]byte(r.Header.Get("Range")), []byte(",")) {
			multi.Add(1)
		}
		s.Handler().ServeHTTP(w, r)
	}))
	defer ts.Close()

	control := filepath.Join(work, "f.bin.zsync")
	mk := exec.Command(zsyncmake, "-u", ts.URL+"/f.bin", "-o", control, filepath.Join(dir, "f.bin"))
	mk.Dir = work
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("zsyncmake: %v\n%s", err, out)
	}
	out := filepath.Join(work, "new.bin")
	cmd := exec.CommandContext(ctx, zsync, "-q", "-i", old, "-o", out, control)
	cmd.Dir = work
	msg, err := cmd.CombinedOutput()
	if n := requests.Load(); n > zsyncRequestLimit {
		t.Fatalf("zsync made more than %d requests (multipart loop)", zsyncRequestLimit)
	}
	if err != nil {
		t.Fatalf("zsync: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(out)
	must(t, err)
	if !bytes.Equal(got, nw) {
		t.Fatalf("zsync rebuilt %d bytes that differ from the served file", len(got))
	}
	if multi.Load() == 0 {
		t.Errorf("zsync made no multi-range request; the test does not cover multipart")
	}
	t.Logf("zsync: %d requests, %d multi-range", requests.Load(), multi.Load())
}
