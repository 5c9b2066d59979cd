package cmd

import (
	"bytes"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/internal/peertest"
)

// interopPair is an old and a new version with edits far apart: zsync
// 0.6.2 asks for several ranges in one request.
func interopPair() (old, cur []byte) {
	cur = zsyncData(31, 3<<20)
	old = bytes.Clone(cur)
	for k := 0; k < 12; k++ {
		old[k*250_000+77] ^= 0x5a
	}
	return old, cur
}

// runZsync runs Debian's zsync 0.6.2 with OLD as seed against url and
// returns the rebuilt file and its output.
func runZsync(t *testing.T, old []byte, url string) ([]byte, string) {
	t.Helper()
	zs := peertest.Need(t, "zsync")
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "old.bin"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(zs, "-i", "old.bin", "-o", "new.bin", url)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zsync %s: %v\n%s", url, err, out)
	}
	got, err := os.ReadFile(filepath.Join(work, "new.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return got, string(out)
}

// TestZsyncClientWithHdigServe: a control file made by hdig zsyncmake,
// published next to the file that hdig serve serves, takes zsync 0.6.2
// from the old version to the new with several ranges per request
// (multipart/byteranges).
func TestZsyncClientWithHdigServe(t *testing.T) {
	peertest.Need(t, "zsync")
	old, cur := interopPair()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), cur, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runHdig(t, "zsyncmake", filepath.Join(dir, "data.bin"), "-o", filepath.Join(dir, "data.bin.zsync")); code != ExitOK {
		t.Fatalf("hdig zsyncmake = %d: %s", code, errOut)
	}
	url := startServe(t, dir)
	got, out := runZsync(t, old, url+"data.bin.zsync")
	if !bytes.Equal(got, cur) {
		t.Fatalf("zsync rebuilt a file that differs from data.bin\n%s", out)
	}
	if !strings.Contains(out, "used ") {
		t.Errorf("zsync used nothing of the seed:\n%s", out)
	}
}

// TestZsyncClientWithoutMultipart: an origin that answers one range with
// a 206 and several with the whole file (200). With one edit zsync 0.6.2
// asks for one range per request and rebuilds the file from hdig's control
// file; with scattered edits it gives up on the 200 ("not a partial content
// response"), where hdig get --zsync, with the same control file, goes on
// with single ranges and rebuilds it.
func TestZsyncClientWithoutMultipart(t *testing.T) {
	peertest.Need(t, "zsync")
	old, cur := interopPair()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), cur, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runHdig(t, "zsyncmake", filepath.Join(dir, "f"), "-o", filepath.Join(dir, "f.zsync")); code != ExitOK {
		t.Fatalf("hdig zsyncmake = %d: %s", code, errOut)
	}
	ctl, _ := os.ReadFile(filepath.Join(dir, "f.zsync"))
	o := &singleRangeOrigin{body: cur, ctl: ctl}
	ts := httptest.NewServer(o)
	defer ts.Close()

	oneEdit := bytes.Clone(cur)
	oneEdit[1_000_003] ^= 0x5a
	if got, out := runZsync(t, oneEdit, ts.URL+"/f.zsync"); !bytes.Equal(got, cur) || o.whole != 0 {
		t.Fatalf("one edit: zsync rebuilt a different file or asked for several ranges (%d)\n%s", o.whole, out)
	}

	work := t.TempDir()
	seed := filepath.Join(work, "old.bin")
	if err := os.WriteFile(seed, old, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(peertest.Need(t, "zsync"), "-i", "old.bin", "-o", "new.bin", ts.URL+"/f.zsync")
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not a partial content response") {
		t.Errorf("scattered edits: zsync 0.6.2 = %v; want it to refuse the 200 (if it now copes, this test should say so)\n%s", err, out)
	}
	code, stdout, errOut := runHdig(t, "get", "--json", "--no-cache", "--zsync", "--seed", seed, "-o", filepath.Join(work, "hdig.bin"), ts.URL+"/f.zsync")
	if v := zsyncVerdict(t, stdout); code != ExitOK || v.Transfer.Received != 12*2048 {
		t.Fatalf("hdig get --zsync = %d, %+v, %q; want 0 and the 12 edited blocks received", code, v.Transfer, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "hdig.bin")); !bytes.Equal(got, cur) {
		t.Error("hdig rebuilt a file that differs from f")
	}
}
