package cmd

import (
	"errors"
	"strings"
	"testing"
)

// A network failure of one URL never hides a mismatch of another.
func TestMultiExitPrefersIntegrity(t *testing.T) {
	tests := []struct {
		codes []int
		want  int
	}{
		{[]int{ExitOK, ExitOK}, ExitOK},
		{[]int{ExitNetwork, ExitIntegrity}, ExitIntegrity},
		{[]int{ExitOK, ExitNetwork, ExitUnverified}, ExitNetwork},
	}
	for _, tt := range tests {
		errs := make([]error, len(tt.codes))
		for i, c := range tt.codes {
			if c != ExitOK {
				errs[i] = withExit(c, errors.New("x"))
			}
		}
		if got := multiExit(errs); got != tt.want {
			t.Errorf("multiExit(%v) = %d, want %d", tt.codes, got, tt.want)
		}
	}
}

// -Z -O with two URLs ending in the same name would write one part file
// from two transfers at once: refused before any request.
func TestParallelURLsSameName(t *testing.T) {
	code, _, errOut := runHdig(t, "get", "-Z", "-O", "--output-dir", t.TempDir(),
		"http://127.0.0.1:1/a/x.iso", "http://127.0.0.1:2/b/x.iso")
	if code != ExitUsage || !strings.Contains(errOut, "both write x.iso") {
		t.Errorf("exit %d, %q; want 2 naming x.iso", code, errOut)
	}
}
