package cmd

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// startServe runs hdig serve with args in-process and returns its base URL;
// the server stops when the test ends.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ios, _, _, _ := Test()
	pr, pw := io.Pipe()
	ios.Out = pw
	ios.ErrOut = io.Discard
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, ios, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...))
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-done // a serve that does not stop is reported by go test's -timeout
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line = %q", line)
	}
	return m[1]
}

// TestServeCmdHistory runs the delta story through both commands: serve
// keeps the old version under --state-dir and get rebuilds a 226.
func TestServeCmdHistory(t *testing.T) {
	site, state, cacheDir := t.TempDir(), t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	base := startServe(t, site, "--history", "2", "--state-dir", state)
	out := filepath.Join(t.TempDir(), "app.js")
	if code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, base+"app.js"); code != 0 || v.Status != 200 {
		t.Fatalf("first: exit %d, status %d: %s", code, v.Status, errOut)
	}
	os.WriteFile(file, versionText(2), 0o644)
	code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, base+"app.js")
	if code != 0 || v.Status != 226 || v.Verdict != "verified" {
		t.Fatalf("second: exit %d, %+v: %s", code, v, errOut)
	}
	assertFile(t, out, string(versionText(2)))
	if _, err := os.Stat(filepath.Join(state, "history", "files")); err != nil {
		t.Errorf("no history under --state-dir: %v", err)
	}
	// --history 0 turns deltas off.
	base0 := startServe(t, site, "--history", "0")
	os.WriteFile(file, versionText(3), 0o644)
	if code, v, errOut := getJSON(t, "--cache-dir", t.TempDir(), "-o", out, base0+"app.js"); code != 0 || v.Status != 200 {
		t.Fatalf("--history 0: exit %d, status %d: %s", code, v.Status, errOut)
	}
	if code, _, _ := runHdig(t, "serve", site, "--history", "-1"); code != ExitUsage {
		t.Errorf("--history -1: exit %d, want 2", code)
	}
}
