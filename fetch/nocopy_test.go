package fetch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/verify"
)

// The body is read straight into the hashing ring's buffers: whether to
// -o FILE in one stream or to stdout held back, no byte is copied into the
// ring, and the hash goroutines get at most one handoff per 512 KiB
// (counted, not timed): each handoff to a waiting goroutine costs a
// wake-up, two context switches and a futex call or two, which at 256 KiB
// came to a tenth of the CPU of receiving 1 GiB.
func TestBodyHashedWithoutCopy(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	maxHandoffs := int64(len(data)>>19 + 1)
	check := func(what string, copied, handoffs int64) {
		t.Helper()
		if got := verify.PipeCopied() - copied; got != 0 {
			t.Errorf("%s: %d bytes copied into the hashing ring, want 0", what, got)
		}
		if got := verify.PipeHandoffs() - handoffs; got == 0 || got > maxHandoffs {
			t.Errorf("%s: %d handoffs to the hash goroutines, want 1 to %d", what, got, maxHandoffs)
		}
	}

	copied, handoffs := verify.PipeCopied(), verify.PipeHandoffs()
	path := filepath.Join(t.TempDir(), "f")
	if _, err := o.get(t, context.Background(), path, DownloadOptions{Parallel: 1}, 0); err != nil {
		t.Fatal(err)
	}
	check("-o", copied, handoffs)
	assertFileBytes(t, path, data)

	c, err := NewClient(Options{Timeout: testStall})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "stdout")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	copied, handoffs = verify.PipeCopied(), verify.PipeHandoffs()
	req := &Request{URL: o.srv.URL + "/f", Policy: verify.DefaultPolicy()}
	if _, err := c.Get(context.Background(), req, &HeldSink{Out: f, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	check("held", copied, handoffs)
	assertFileBytes(t, out, data)
}
