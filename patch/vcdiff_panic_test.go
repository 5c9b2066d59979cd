package patch

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// panickyWriter panics in Write, as a caller's writer may (net/http's
// http.ErrAbortHandler is a panic the server recovers on purpose).
type panickyWriter struct{}

func (panickyWriter) Write(p []byte) (int, error) { panic("writer panic") }

// TestWriterPanicRecoverable: a panic in the caller's Writer reaches
// the caller of DecodeVCDIFF, where it can be recovered, as it did when the
// writes ran on the caller's goroutine. Since windows are written on
// another goroutine it kills the process instead. (Run in a child
// process, since the crash cannot be caught.)
func TestWriterPanicRecoverable(t *testing.T) {
	if os.Getenv("HDIG_PANIC_CHILD") == "1" {
		delta := []byte{0xd6, 0xc3, 0xc4, 0, 0}
		delta = append(delta, vcdiffWindow(1, []byte{'x'}, []byte{2})...) // ADD 1
		func() {
			defer func() {
				if recover() != nil {
					os.Exit(0)
				}
			}()
			DecodeVCDIFF(bytes.NewReader(nil), 0, bytes.NewReader(delta), panickyWriter{})
		}()
		os.Exit(3) // no panic at all
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriterPanicRecoverable$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HDIG_PANIC_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		n := min(len(out), 600)
		t.Fatalf("child: %v; the writer's panic was not recoverable by the caller:\n%s", err, out[:n])
	}
}
