package patch

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/hdig/hdig/internal/peertest"
)

// checkingWriter checks that a buffer it is writing does not change while
// the write is in progress (slow on purpose).
type checkingWriter struct {
	out  bytes.Buffer
	bad  int
	wait time.Duration
}

func (w *checkingWriter) Write(p []byte) (int, error) {
	c := bytes.Clone(p)
	time.Sleep(w.wait)
	if !bytes.Equal(c, p) {
		w.bad++
	}
	w.out.Write(c)
	return len(p), nil
}

// TestPendingBuffersUnchanged: xdelta3 deltas with every secondary compressor,
// small windows, histories smaller and larger than a window: the buffer
// being written never changes under the writer and the output is right.
func TestPendingBuffersUnchanged(t *testing.T) {
	xd := xdelta3(t)
	base := text(41, 300<<10)
	target := textEdits(base, 42, 300)
	target = append(target, target[:100<<10]...) // VCD_TARGET copies
	dir := t.TempDir()
	bp := peertest.WriteFile(t, dir, "base", base)
	tp := peertest.WriteFile(t, dir, "target", target)
	for _, comp := range []string{"lzma", "djw", "fgk", "none"} {
		delta := peertest.Run(t, xd, "-e", "-9", "-c", "-S", comp, "-W", "16384", "-s", bp, tp)
		for _, hist := range []int{4 << 10, 16 << 10, 20 << 10, 1 << 20} {
			t.Run(fmt.Sprintf("%s/hist%d", comp, hist), func(t *testing.T) {
				w := &checkingWriter{wait: 200 * time.Microsecond}
				err := DecodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(delta), w, WithHistory(hist))
				if comp == "fgk" && err != nil {
					t.Skipf("fgk: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				if w.bad != 0 || !bytes.Equal(w.out.Bytes(), target) {
					t.Fatalf("%d buffers changed during write; output equal %v", w.bad, bytes.Equal(w.out.Bytes(), target))
				}
			})
		}
	}
}
