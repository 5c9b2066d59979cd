package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 9 items 3, 4 and 5 against hdig serve --writable itself.
func TestGetAgainstServeCmd(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("hdig serve writable\n", 50)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(body), 0o644)
	url := startServe(t, dir, "--writable")
	cacheDir := t.TempDir()

	// 5: an upload's 201, then 204, verified against what was sent.
	up := filepath.Join(t.TempDir(), "up.txt")
	os.WriteFile(up, []byte(body), 0o644)
	for _, want := range []string{"201 Created", "204 No Content"} {
		code, _, errOut := runHdig(t, "get", "-T", up, url+"up.txt")
		if code != 0 || !strings.Contains(errOut, "✔ verified Repr-Digest sha-256") || !strings.Contains(errOut, want) {
			t.Errorf("PUT, want %s: exit %d: %s", want, code, errOut)
		}
	}
	// 3: a cached version does not turn -r into the whole file.
	out := filepath.Join(t.TempDir(), "f.txt")
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url+"f.txt"); code != 0 {
		t.Fatalf("GET: exit %d: %s", code, errOut)
	}
	if code, stdout, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-r", "5-9", url+"f.txt"); code != 0 || stdout != body[5:10] {
		t.Errorf("-r 5-9: exit %d, stdout %.30q: %s", code, stdout, errOut)
	}
	// 4: the user's own If-None-Match gets "not modified", FILE stays.
	code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-H", "If-None-Match: "+etagOf(t, url+"f.txt"), "-o", out, url+"f.txt")
	if code != 0 || v.Transfer.Strategy != "not-modified" || v.Status != 304 {
		t.Errorf("If-None-Match: exit %d, %+v: %s", code, v, errOut)
	}
	assertFile(t, out, body)
}
