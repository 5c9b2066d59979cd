//go:build !linux

package fetch

import (
	"errors"
	"os"
)

// kernelRelease copies nothing where no kernel-side copy is wired: the
// caller's portable copy releases the whole body.
func kernelRelease(dst, src *os.File, size int64, punch bool) (int64, error) { return 0, nil }

// punchFile frees nothing where punching is not wired.
func punchFile(f *os.File, off, n int64) {}

// spillBeside spools nowhere special where anonymous files are not wired:
// the spill goes to TMPDIR.
func spillBeside(out any) (*os.File, error) { return nil, errors.ErrUnsupported }
