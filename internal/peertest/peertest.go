// Package peertest finds the peer programs interop tests run (xdelta3,
// zsync, zstd, openssl, coreutils): one rule for every package's tests.
package peertest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Need returns the path of the program name. Without it the test is
// skipped, except in CI (CI set), where it fails: .ci/run installs every
// peer, so a missing one there is a broken CI, not a reason to pass.
func Need(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		// Daemons (nginx) live in /usr/sbin, off a user's PATH.
		if q, serr := exec.LookPath("/usr/sbin/" + name); serr == nil {
			return q
		}
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI (.ci/run installs it): %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// WriteFile writes b to dir/name and returns its path; an error fails the
// test.
func WriteFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Run runs the peer program name and returns its standard output; a
// failure fails the test with the program's standard error.
func Run(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, errb.String())
	}
	return out.Bytes()
}
