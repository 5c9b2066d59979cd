package cmd

import (
	"context"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	good := map[string]int64{"1024": 1024, "512B": 512, "64k": 64 << 10, "64K": 64 << 10, "64KB": 64 << 10, "100MiB": 100 << 20,
		"100 MiB": 100 << 20, "100mib": 100 << 20, "5MB": 5 << 20, "1G": 1 << 30, "1g": 1 << 30, "2GiB": 2 << 30, "1T": 1 << 40, " 3k ": 3 << 10}
	for in, want := range good {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	// "5bi" and "1Gbb" were accepted by serve and get, refused by check.
	for _, in := range []string{"", "0", "-1", "+1", "x", "lots", "1.5G", "1P", "99999999999T", "5bi", "1Gbb", "5i", "5iB",
		"1Gi", "1GiBB", "1 G B", "G", "1 024", strings.Repeat("1", 40)} {
		_, err := parseSize(in)
		if err == nil {
			t.Errorf("parseSize(%q) succeeded", in)
		} else if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 200 {
			t.Errorf("parseSize(%q): error %q is not one short line", in, msg)
		}
	}
}

// TestSizeFlags: every command's SIZE flag goes through parseSize, so all
// refuse the same malformed sizes with a one-line usage error.
func TestSizeFlags(t *testing.T) {
	dir := t.TempDir()
	// A serve that took the size would run until cancelled: it is cancelled
	// before it starts, so it ends at once with another status.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, bad := range []string{"5bi", "1Gbb"} {
		for _, args := range [][]string{
			{"serve", "--max-upload", bad, dir},
			{"serve", "--history-max", bad, dir},
			{"get", "--cache-max", bad, "http://127.0.0.1:1/"},
			{"get", "--max-filesize", bad, "http://127.0.0.1:1/"},
			{"check", "--max-body", bad, "http://127.0.0.1:1/"},
		} {
			code, _, errOut := runHdigCtx(t, done, args...)
			if code != ExitUsage || !strings.Contains(errOut, `invalid size "`+bad+`"`) || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
				t.Errorf("%v: exit %d, want 2 with one line naming the size: %s", args, code, errOut)
			}
		}
	}
}
