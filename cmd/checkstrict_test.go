package cmd

import (
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/servertest"
)

// TestCheckStrictTableAgrees: under --strict a warning fails the gate, and
// the table says so, in text as in each group of --format github.
func TestCheckStrictTableAgrees(t *testing.T) {
	u := servertest.New(t, checkSite, server.WithIgnoreRange()).URL + "/hello.json"
	for _, format := range []string{"text", "github"} {
		code, out, _ := runHdig(t, "check", "--strict", "--format", format, u)
		if code != ExitIntegrity || strings.Contains(out, "⚠") || !strings.Contains(out, "✖ range.partial") {
			t.Errorf("--format %s: exit %d, want 1 with range.partial marked ✖, not ⚠:\n%s", format, code, out)
		}
	}
}
