package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOutputSameAsDumpOrJar: -D FILE or -c FILE naming -o's file (under
// any spelling) is a usage error before anything is written: the headers
// were appended to the verified body (or emptied the file before a run
// that then failed), the cookie jar replaced it, exit 0.
func TestOutputSameAsDumpOrJar(t *testing.T) {
	srv, _ := seeingOrigin(t, helloHandler)
	dir := t.TempDir()
	out := filepath.Join(dir, "f")
	for _, flags := range [][]string{{"-D", out}, {"-c", out}, {"-D", filepath.Join(dir, ".", "f")}} {
		os.WriteFile(out, []byte("mine"), 0o644)
		args := append([]string{"get", "-s", "-o", out}, flags...)
		code, _, stderr := runHdig(t, append(args, srv.URL+"/f")...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", flags, code, stderr)
		}
		assertFile(t, out, "mine")
	}
}
