package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -H 'Range: bytes=…' asks for part of the file as -r does (and is read as
// -r's answer): --zsync refuses it as it refuses -r, and auto never takes
// the zsync path for it. Auto did: with a cached base and an origin
// remembered as sending no 226, the whole file was rebuilt by zsync and
// written where the user asked for ten bytes (exit 0).
func TestZsyncRangeHeader(t *testing.T) {
	code, _, errOut := runHdig(t, "get", "--zsync", "-H", "Range: bytes=0-1", "-o", filepath.Join(t.TempDir(), "y"), "http://127.0.0.1:1/f.zsync")
	if code != ExitUsage || !strings.Contains(errOut, "Range header") {
		t.Errorf("--zsync -H Range: exit %d, %q; want 2 naming the Range header", code, errOut)
	}
	r := newStrategyRun(t) // no WithDelta: A-IM gets a 200, remembered
	r.get("v1", 1, "full")
	r.get("v2", 2, "full")
	data := zsyncData(21, 1<<20)
	data[7] = 3
	os.WriteFile(r.file, data, 0o644)
	out := filepath.Join(r.work, "part")
	code, _, errOut = runHdig(t, "get", "--cache-dir", r.cacheDir, "-H", "Range: bytes=0-9", "-o", out, r.url)
	b, _ := os.ReadFile(out)
	if code != ExitOK || string(b) != string(data[:10]) {
		t.Errorf("auto with -H Range: exit %d, %d bytes written; want 0 and the 10 bytes asked\n%s", code, len(b), errOut)
	}
}
