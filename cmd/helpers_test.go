package cmd

import (
	"context"
	"os"
	"testing"
)

// runHdig runs hdig in-process and returns its exit status and output.
func runHdig(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runHdigCtx(t, context.Background(), args...)
}

func runHdigCtx(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := Test()
	code := Run(ctx, ios, args)
	return code, out.String(), errOut.String()
}

// TestMain keeps the tests' base-version cache out of the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hdig-cmd-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HDIG_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
