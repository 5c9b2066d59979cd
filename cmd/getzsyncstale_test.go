package cmd

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGetZsyncStaleControlNotCachedUnderETag: a control file older than
// the file it points at (a .zsync not remade after the file changed), all
// of whose blocks the seed has, rebuilds the old version; no range
// response ties those bytes to the origin's ETag, so they must not enter
// the base-version cache under the new version's ETag: the next plain get
// would otherwise be answered 304 and write the old bytes as the new.
func TestGetZsyncStaleControlNotCachedUnderETag(t *testing.T) {
	cur, old := zsyncData(21, 200_000), zsyncData(22, 200_000)
	buf := bytes.NewBuffer(controlFor(t, old))
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

// TestGetZsyncLengthDisagrees: a control file whose Length is not the
// length the origin gives the file (HEAD's Content-Length, a 206's
// Content-Range) does not describe it: the file grew after the .zsync was
// made. Rebuilding the control file's version and calling it unverified
// (exit 0) would hide a difference hdig saw; it fails (exit 1), nothing
// written, whether the seeds held every block (a HEAD is sent) or ranges
// of the shared start were fetched.
func TestGetZsyncLengthDisagrees(t *testing.T) {
	old := zsyncData(23, 200_000)
	cur := append(bytes.Clone(old), zsyncData(24, 10_000)...) // appended to
	buf := bytes.NewBuffer(controlFor(t, old))
	for _, c := range []struct {
		name string
		seed []byte
	}{
		{"every block in the seed", old},
		{"one block fetched", append(bytes.Clone(old[:50_000]), old[52_048:]...)},
		{"two ranges fetched (multipart)", corrupt(old, 10_000, 100_000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(&zsyncOrigin{body: cur, ctl: buf.Bytes()})
			defer ts.Close()
			work := t.TempDir()
			seed := filepath.Join(work, "seed")
			os.WriteFile(seed, c.seed, 0o644)
			out := filepath.Join(work, "new")
			code, stdout, errOut := runHdig(t, "get", "--zsync", "--json", "--no-cache", "--seed", seed, "-o", out, ts.URL+"/f.zsync")
			if code != ExitIntegrity || !strings.Contains(errOut, "Length") {
				t.Errorf("a control file of %d bytes for a file of %d = %d, %q; want 1 naming the lengths", len(old), len(cur), code, errOut)
			}
			// --json says so on stdout, as for any failed download.
			if v := zsyncVerdict(t, stdout); v.Verdict != "mismatch" {
				t.Errorf("--json verdict %q, want mismatch", v.Verdict)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("the output was written")
			}
		})
	}
}

// corrupt returns b with a byte flipped at each offset.
func corrupt(b []byte, offs ...int) []byte {
	b = bytes.Clone(b)
	for _, o := range offs {
		b[o] ^= 0xff
	}
	return b
}
