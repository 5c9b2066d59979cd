package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestZsyncSeedMissing: a --seed that cannot be opened is a usage error
// whose line reads "--seed: open FILE: ...", not "--seed open FILE: ...".
func TestZsyncSeedMissing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), zsyncData(3, 10000), 0o644)
	url := startServe(t, dir)
	work := t.TempDir()
	missing := filepath.Join(work, "missing")
	out := filepath.Join(work, "out")
	code, _, errOut := runHdig(t, "get", "--zsync", "--no-cache", "--seed", missing, "-o", out, url+"f.zsync")
	want := "hdig: --seed: open " + missing + ": no such file or directory"
	if code != ExitUsage || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want %d and %q", code, errOut, ExitUsage, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the output was written")
	}
}
