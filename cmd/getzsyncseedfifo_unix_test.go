//go:build unix

package cmd

import (
	"bytes"
	"os"
	"syscall"
	"testing"
)

// TestGetZsyncSeedNameFIFO: OUT.hdig-zsync-seed is a part hdig moved
// aside itself; a FIFO someone put at that name (a shared directory) was
// opened as it, and the run hung until a writer came, then read what the
// writer chose. Only a regular file of hdig's own there is read (as a
// part or sidecar is); anything else is no seed, and never opened.
func TestGetZsyncSeedNameFIFO(t *testing.T) {
	o := &singleRangeOrigin{}
	url, _, out := singleRangeSetup(t, o)
	fifo := out + ".hdig-zsync-seed"
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan struct{})
	go func() { // a writer: it gets through once a reader opens the FIFO, and offers the very blocks
		defer close(done)
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(o.body) // EPIPE once the reader is gone
			f.Close()
		}
	}()
	code, stdout, errOut := runHdig(t, "get", "--json", "--no-cache", "--zsync", "-o", out, url)
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil { // release the writer
		r.Close()
	}
	<-done
	v := zsyncVerdict(t, stdout)
	if v.Transfer.Reused != 0 {
		t.Errorf("%d bytes were taken from the FIFO at %s as a seed; want none", v.Transfer.Reused, fifo)
	}
	if got, _ := os.ReadFile(out); code != ExitOK || !bytes.Equal(got, o.body) {
		t.Errorf("hdig get --zsync = %d, %q; want 0 and the file", code, errOut)
	}
}
