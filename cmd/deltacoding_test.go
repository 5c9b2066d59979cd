package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// With --compressed the 226 comes content-coded (zstd or br over the
// vcdiff, RFC 3229 §10.7): hdig undoes the coding, applies the delta and
// verifies Repr-Digest over the rebuilt file.
func TestGetDeltaContentCoded(t *testing.T) {
	site, cacheDir := t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	out := filepath.Join(t.TempDir(), "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	url := deltaOrigin(t, site, nil) + "/app.js"
	if code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, url); code != 0 || v.Status != 200 {
		t.Fatalf("first fetch: exit %d, %+v: %s", code, v, errOut)
	}
	os.WriteFile(file, versionText(2), 0o644)
	code, v, errOut := getJSON(t, "--compressed", "--cache-dir", cacheDir, "-o", out, url)
	if code != 0 || v.Status != 226 || v.Transfer.Strategy != "delta" || v.Verdict != "verified" {
		t.Fatalf("second fetch: exit %d, %+v: %s", code, v, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, versionText(2)) {
		t.Errorf("rebuilt %d bytes, want version 2 (%d bytes)", len(got), len(versionText(2)))
	}
}
