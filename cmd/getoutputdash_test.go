package cmd

import (
	"os"
	"testing"
)

// -o - is stdout, as in curl (`curl -o - URL | tar x`): it wrote a file
// named "-" (replacing one there) and nothing to stdout.
func TestOutputDashIsStdout(t *testing.T) {
	srv, _ := seeingOrigin(t, nil)
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := runHdig(t, "get", "-s", "--no-cache", "-o", "-", srv.URL)
	if code != 0 || out != helloBody {
		t.Errorf("exit %d, stdout %q; stderr %s", code, out, errOut)
	}
	if _, err := os.Lstat("-"); err == nil {
		t.Errorf("a file named - was written in %s", dir)
	}
	// --json and the body would share stdout: refused, as without -o.
	if code, _, errOut := runHdig(t, "get", "--json", "-o", "-", srv.URL); code != ExitUsage {
		t.Errorf("--json -o -: exit %d: %s", code, errOut)
	}
}
