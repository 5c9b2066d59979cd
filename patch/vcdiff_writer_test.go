package patch

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// failingWriter fails its first write.
type failingWriter struct{ err error }

func (w *failingWriter) Write(p []byte) (int, error) { return 0, w.err }

// TestDecodeVCDIFFWriteErrorFirst: windows are written on another
// goroutine while the next decodes, yet when window 0's write fails and
// window 1 is corrupt, the error is window 0's write.
func TestDecodeVCDIFFWriteErrorFirst(t *testing.T) {
	delta := []byte{0xd6, 0xc3, 0xc4, 0, 0}
	delta = append(delta, vcdiffWindow(1, []byte{'x'}, []byte{2})...) // ADD 1
	delta = append(delta, vcdiffWindow(5, nil, []byte{2})...)         // ADD without data
	full := errors.New("disk full")
	err := DecodeVCDIFF(bytes.NewReader(nil), 0, bytes.NewReader(delta), &failingWriter{full})
	if !errors.Is(err, full) || !strings.Contains(err.Error(), "window 0:") {
		t.Fatalf("error = %v, want window 0's write error", err)
	}
	err = DecodeVCDIFF(bytes.NewReader(nil), 0, bytes.NewReader(delta), &bytes.Buffer{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "window 1:") {
		t.Fatalf("error = %v, want window 1 corrupt", err)
	}
}

// TestDecodeVCDIFFWindowsWrittenInOrder decodes many windows with
// histories smaller and larger than a window, so that a window's buffer is
// the next one's (history larger: copied into it) or the one before's
// (smaller: swapped) while its write may be pending: every byte arrives,
// in order.
func TestDecodeVCDIFFWindowsWrittenInOrder(t *testing.T) {
	base := text(31, 200<<10)
	target := textEdits(base, 32, 40)
	for _, hist := range []int{4 << 10, 64 << 10, 1 << 20} {
		delta := encodeVCDIFF(t, base, target, WithWindowSize(16<<10))
		got, err := decodeVCDIFF(base, delta, WithHistory(hist))
		if err != nil || !bytes.Equal(got, target) {
			t.Fatalf("history %d: %v, equal %v", hist, err, bytes.Equal(got, target))
		}
	}
}
