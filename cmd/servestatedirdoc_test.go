package cmd

import (
	"os"
	"strings"
	"testing"
)

// --state-dir must be the user's own, and so must its subdirectories
// (internal/ownfile.Dir: owned by the user, writable by neither group nor
// others), else hdig serve refuses it; neither hdig serve --help nor the
// README said so.
func TestServeStateDirOwnershipDocumented(t *testing.T) {
	const want = "not writable by its group or others"
	code, out, errOut := runHdig(t, "serve", "--help")
	if code != 0 {
		t.Fatalf("serve --help: exit %d: %s", code, errOut)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
		t.Errorf("serve --help does not say --state-dir must be the user's own (%q)", want)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "- `--state-dir` keeps")
	if i < 0 {
		t.Fatal("README: no --state-dir item in hdig serve's list")
	}
	item, _, _ := strings.Cut(string(readme[i+2:]), "\n- ")
	if !strings.Contains(strings.Join(strings.Fields(item), " "), want) {
		t.Errorf("README's --state-dir item does not say it must be the user's own (%q)", want)
	}
}
