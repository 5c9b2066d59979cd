// Package peertest finds the peer programs interop tests run (xdelta3,
// zsync, zstd, openssl, coreutils): one rule for every package's tests.
package peertest

import (
	"os"
	"os/exec"
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
