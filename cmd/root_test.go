package cmd

import (
	"strings"
	"testing"
)

func TestUsageExitStatus(t *testing.T) {
	for _, args := range [][]string{
		{"bogus"},
		{"get"},
		{"version", "extra"},
		{"demo", "extra"},
		{"get", "--no-such-flag", "http://127.0.0.1:1/"},
		{"sum", "-a", "sha-3"},
		{"serve"},
		{"diff", "only-one"},
	} {
		if code, _, errOut := runHdig(t, args...); code != ExitUsage {
			t.Errorf("hdig %v: exit %d, want %d; stderr: %s", args, code, ExitUsage, errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runHdig(t, "version")
	if code != 0 || len(out) < len("hdig ") || out[:5] != "hdig " {
		t.Errorf("version: exit %d, %q", code, out)
	}
}

// TestCompletionUnknownShell: "hdig completion nosh" printed the help and
// exited 0, cobra's way for a command group; an unknown shell is a usage
// error (exit 2) that names it. "hdig completion bash" still prints the
// script and "hdig completion" the help.
func TestCompletionUnknownShell(t *testing.T) {
	code, out, errOut := runHdig(t, "completion", "nosh")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, `"nosh"`) || strings.Count(errOut, "\n") > 2 {
		t.Errorf("completion nosh: exit %d, stdout %q, stderr %q; want 2 naming the shell", code, out, errOut)
	}
	if code, out, _ := runHdig(t, "completion", "bash"); code != ExitOK || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d, %d bytes", code, len(out))
	}
	if code, out, _ := runHdig(t, "completion"); code != ExitOK || !strings.Contains(out, "bash") {
		t.Errorf("completion: exit %d, %q", code, out)
	}
}
