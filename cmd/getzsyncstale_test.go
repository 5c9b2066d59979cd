package cmd

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/zsync"
)

// TestGetZsyncStaleControlNotCachedUnderETag: a control file older than
// the file it points at (a .zsync not remade after the file changed), all
// of whose blocks the seed has, rebuilds the old version; no range
// response ties those bytes to the origin's ETag, so they must not enter
// the base-version cache under the new version's ETag: the next plain get
// would otherwise be answered 304 and write the old bytes as the new.
func TestGetZsyncStaleControlNotCachedUnderETag(t *testing.T) {
	cur, old := zsyncData(21, 200_000), zsyncData(22, 200_000)
	ctl, err := zsync.Make(bytes.NewReader(old), int64(len(old)), zsync.MakeOptions{URL: "f"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ctl.WriteTo(&buf)
	ts := httptest.NewServer(&zsyncOrigin{body: cur, ctl: buf.Bytes()})
	defer ts.Close()
	work, cacheDir := t.TempDir(), t.TempDir()
	seed := filepath.Join(work, "seed")
	os.WriteFile(seed, old, 0o644)
	code, _, errOut := runHdig(t, "get", "--zsync", "--cache-dir", cacheDir, "--seed", seed, "-o", filepath.Join(work, "z"), ts.URL+"/f.zsync")
	t.Logf("zsync run: %d %s", code, errOut)
	out := filepath.Join(work, "plain")
	code, _, errOut = runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, ts.URL+"/f")
	got, _ := os.ReadFile(out)
	if code == ExitOK && !bytes.Equal(got, cur) {
		t.Fatalf("plain get after the zsync run = %d with the old version's bytes written as the origin's: %s", code, errOut)
	}
}
