package cmd

import (
	"strings"
	"testing"

	"github.com/hdig/hdig/fetch"
)

// TestZsyncNoteSingular: the verdict of a zsync run that sent one range
// request read "in 1 range requests".
func TestZsyncNoteSingular(t *testing.T) {
	for n, want := range map[int]string{1: "in 1 range request,", 3: "in 3 range requests,"} {
		got := transferNote(&fetch.Result{Strategy: fetch.StrategyZsync, Pieces: n, Received: 10, Reused: 20})
		if !strings.Contains(got, want) {
			t.Errorf("%d requests: %q, want %q", n, got, want)
		}
	}
}
