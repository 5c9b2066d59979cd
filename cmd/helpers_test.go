package cmd

import (
	"context"
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
