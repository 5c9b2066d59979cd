package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --state-dir inside DIR (also through symlinks on either side) would
// publish history blobs and variants, and with --writable let anyone
// replace them: it is refused with exit 2 and one line, and nothing is
// created.
func TestServeStateDirInsideDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "public")
	mustDo(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	mustDo(t, os.Symlink(dir, filepath.Join(base, "dir-link")))
	mustDo(t, os.Symlink(filepath.Join(dir, "sub"), filepath.Join(base, "sub-link")))
	for _, tc := range [][2]string{
		{dir, filepath.Join(dir, "state")},
		{dir, dir},
		{dir, filepath.Join(dir, "sub", "deeper", "state")},
		{filepath.Join(base, "dir-link"), filepath.Join(dir, "state")},
		{dir, filepath.Join(base, "sub-link", "state")},
		{filepath.Join(base, "dir-link"), filepath.Join(base, "dir-link", "x", "..", "state")},
	} {
		code, out, errOut := runHdig(t, "serve", tc[0], "--state-dir", tc[1], "--addr", "127.0.0.1:0", "--writable")
		if code != ExitUsage || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "--state-dir") {
			t.Errorf("serve %s --state-dir %s: exit %d, stdout %q, stderr %q; want 2 and one line", tc[0], tc[1], code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		t.Error("the refused state directory was created")
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Without --state-dir the history goes to a temporary directory outside
// DIR, also when the temporary directory is DIR itself.
func TestServeTempHistoryOutsideDir(t *testing.T) {
	site := t.TempDir()
	mustDo(t, os.WriteFile(filepath.Join(site, "a.txt"), []byte("hello\n"), 0o644))
	t.Setenv("TMPDIR", site)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	base := startServe(t, site)
	if code, _, errOut := runHdig(t, "get", "--no-cache", "-o", filepath.Join(t.TempDir(), "a"), base+"a.txt"); code != 0 {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	if m, _ := filepath.Glob(filepath.Join(site, "hdig-serve-history-*")); len(m) > 0 {
		t.Errorf("history kept inside the served directory: %v", m)
	}
}
