package cmd

import (
	"strings"
	"testing"
)

// TestBadURLRedacted: a URL hdig refuses is named in the error with its
// password replaced, as every other message names it (CI logs keep
// stderr).
func TestBadURLRedacted(t *testing.T) {
	for _, args := range [][]string{
		{"get", "-o", "x", "http://u:secret@127.0.0.1:1/%zz"},
		{"get", "-O", "http://u:secret@127.0.0.1:1/%zz"},
		{"get", "-o", "x", "ftp://u:secret@127.0.0.1:1/a"},
		{"check", "http://u:secret@127.0.0.1:1/%zz"},
		{"get", "-o", "x", "--zsync", "--zsync-url", "http://u:secret@127.0.0.1:1/%zz", "http://127.0.0.1:1/a"},
		{"get", "-o", "x", "--mirror", "http://u:secret@127.0.0.1:1/%zz", "http://127.0.0.1:1/a"},
	} {
		code, out, errOut := runHdig(t, args...)
		if code != ExitUsage || strings.Contains(out+errOut, "secret") || !strings.Contains(errOut, "xxxxx") {
			t.Errorf("%q: exit %d, stderr %q: want %d and the password redacted", args, code, errOut, ExitUsage)
		}
	}
}
