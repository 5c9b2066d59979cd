package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An --im listing zstd and br after the coding accepts the delta so
// compressed, and the 226 comes so ("IM: vcdiff, zstd", RFC 3229
// §10.7.3): hdig undoes both, and verifies Repr-Digest over the rebuilt
// file. --compressed alone leaves the A-IM at its default (contract).
func TestGetDeltaCompressed(t *testing.T) {
	site, cacheDir := t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	out := filepath.Join(t.TempDir(), "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	url := deltaOrigin(t, site, nil) + "/app.js"
	if code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, url); code != 0 || v.Status != 200 {
		t.Fatalf("first fetch: exit %d, %+v: %s", code, v, errOut)
	}
	os.WriteFile(file, versionText(2), 0o644)
	code, v, errOut := getJSON(t, "--im", "vcdiff, zstd, br", "--cache-dir", cacheDir, "-o", out, url)
	if code != 0 || v.Status != 226 || v.Transfer.Strategy != "delta" || v.Verdict != "verified" {
		t.Fatalf("second fetch: exit %d, %+v: %s", code, v, errOut)
	}
	if im := strings.Join(v.Transfer.IM, ", "); im != "vcdiff, zstd" && im != "vcdiff, br" {
		t.Errorf("second fetch: IM %q, want vcdiff compressed by zstd or br", im)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, versionText(2)) {
		t.Errorf("rebuilt %d bytes, want version 2 (%d bytes)", len(got), len(versionText(2)))
	}
	os.WriteFile(file, versionText(3), 0o644)
	code, v, errOut = getJSON(t, "--compressed", "--cache-dir", cacheDir, "-o", out, url)
	if code != 0 || v.Status != 226 || strings.Join(v.Transfer.IM, ", ") != "vcdiff" {
		t.Fatalf("--compressed: exit %d, status %d, IM %q; want 226 vcdiff: %s", code, v.Status, v.Transfer.IM, errOut)
	}
}
