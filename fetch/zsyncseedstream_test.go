//go:build unix

package fetch

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestZsyncStreamSeedBounded: a seed that is no regular file (a FIFO, a
// device: --seed /dev/zero, <(yes)) is read in order until every block is
// found. An endless one that lacks a block was read for ever: the run
// never ended. What a stream seed is read for is bounded by the target's
// length (maxStreamSeed); the blocks it did not give are fetched.
func TestZsyncStreamSeedBounded(t *testing.T) {
	body := genData(64<<10, 5)
	url, _ := zsyncOrigin(t, body)
	dir := t.TempDir()
	fifo, out := filepath.Join(dir, "seed"), filepath.Join(dir, "out")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	// The writer gives up, closing its end, after far more than the bound:
	// the old code's read then ended there, a test that fails, not hangs.
	giveUp := 64 * maxStreamSeed(int64(len(body)))
	var wrote atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		zeros := make([]byte, 32<<10)
		for wrote.Load() < giveUp {
			n, err := w.Write(zeros)
			wrote.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	c, _ := NewClient(Options{Timeout: testStall})
	_, err := c.Zsync(context.Background(), &Request{URL: url + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}, ZsyncOptions{Output: out, Seeds: []string{fifo}})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, body) {
		t.Fatal("rebuilt file differs")
	}
	// The pipe's buffer and a write in flight pass the bound.
	if n, most := wrote.Load(), maxStreamSeed(int64(len(body)))+1<<20; n > most {
		t.Errorf("the seed stream was read for %d bytes, want at most %d (the target has %d)", n, most, len(body))
	}
}
