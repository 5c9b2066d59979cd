package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestZsyncVerbose: -v with --zsync showed no request or response at all:
// the hooks were set on the plain transfer's request only, and the zsync
// requests (the HEAD, the control file, the ranges) did not carry them.
func TestZsyncVerbose(t *testing.T) {
	dir := t.TempDir()
	data := zsyncData(4, 20000)
	os.WriteFile(filepath.Join(dir, "f"), data, 0o644)
	url := startServe(t, dir)
	work := t.TempDir()
	seed := filepath.Join(work, "old")
	os.WriteFile(seed, data[:10000], 0o644)
	code, _, errOut := runHdig(t, "get", "-v", "--zsync", "--no-cache", "--seed", seed, "-o", filepath.Join(work, "out"), url+"f")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"> HEAD /f HTTP/1.1", "> GET /f.zsync HTTP/1.1", "> GET /f HTTP/1.1", "< HTTP/1.1 206"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}
