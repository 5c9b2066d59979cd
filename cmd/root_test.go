package cmd

import "testing"

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
