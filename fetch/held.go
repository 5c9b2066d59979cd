package fetch

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// HeldSink holds a body back until it is verified: in memory up to Limit
// bytes, then in a temporary file (in Dir, else TMPDIR) that is unlinked at
// once, so nothing is left behind whatever happens. Commit releases it to
// Out: from the file by a kernel-side copy when Out is a file, pipe or
// socket (release), so the body is not read back through user space and
// memory stays bounded whatever its size.
type HeldSink struct {
	Out   io.Writer
	Limit int
	Dir   string // for the spill file; "" = os.TempDir()

	buf  bytes.Buffer
	file *os.File
	size int64 // bytes in file
}

// DefaultHoldLimit is how much of a held body stays in memory.
const DefaultHoldLimit = 256 << 10

// userCopied counts the bytes a HeldSink released from its spill file
// through user space (the portable fallback), for tests.
var userCopied atomic.Int64

func (s *HeldSink) Write(p []byte) (int, error) {
	if s.file == nil && s.buf.Len()+len(p) > s.limit() {
		f, err := os.CreateTemp(s.Dir, "hdig-held-*")
		if err != nil {
			return 0, fmt.Errorf("spill held body to disk: %w", err)
		}
		os.Remove(f.Name()) // the open file stays usable; nothing is left behind
		s.file = f
		n, err := s.buf.WriteTo(f)
		s.size = n
		s.buf = bytes.Buffer{} // its memory is not needed any more
		if err != nil {
			return 0, fmt.Errorf("spill held body to disk: %w", err)
		}
	}
	if s.file != nil {
		n, err := s.file.Write(p)
		s.size += int64(n)
		return n, err
	}
	return s.buf.Write(p)
}

func (s *HeldSink) limit() int {
	if s.Limit > 0 {
		return s.Limit
	}
	return DefaultHoldLimit
}

// Reset discards what was held.
func (s *HeldSink) Reset() error {
	s.buf.Reset()
	return s.drop()
}

// Commit writes the held body to Out.
func (s *HeldSink) Commit() error {
	defer s.drop()
	if s.file == nil {
		_, err := s.buf.WriteTo(s.Out)
		return err
	}
	return release(s.Out, s.file, s.size)
}

// Reader reads the held body from its start, without releasing it; it is
// valid until Commit, Abort or Reset.
func (s *HeldSink) Reader() (io.Reader, error) {
	if s.file == nil {
		return bytes.NewReader(s.buf.Bytes()), nil
	}
	return readBackCounter{io.NewSectionReader(s.file, 0, s.size)}, nil
}

// heldReadBack counts the bytes read back from spill files through
// Reader, for tests.
var heldReadBack atomic.Int64

type readBackCounter struct{ r io.Reader }

func (c readBackCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	heldReadBack.Add(int64(n))
	return n, err
}

// spooled returns the spill file and how many bytes of it are held; nil
// when the body is held in memory. Valid until Commit, Abort or Reset.
func (s *HeldSink) spooled() (*os.File, int64) { return s.file, s.size }

// Abort discards the held body.
func (s *HeldSink) Abort() error {
	s.buf.Reset()
	return s.drop()
}

func (s *HeldSink) drop() error {
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file, s.size = nil, 0
	return err
}

// release copies the first size bytes of the spill file f to out: by the
// kernel where it can (kernelRelease), then, from where that stopped, through
// a buffer. It is f's last reader: what the kernel copied is punched out
// of f as it goes.
func release(out io.Writer, f *os.File, size int64) error {
	var done int64
	if o, ok := out.(*os.File); ok {
		n, err := kernelRelease(o, f, size)
		if err != nil {
			return err
		}
		done = n
	}
	if done == size {
		return nil
	}
	n, err := io.CopyBuffer(onlyWriter{out}, io.NewSectionReader(f, done, size-done), make([]byte, copyBufSize))
	userCopied.Add(n)
	if err == nil && n != size-done {
		err = fmt.Errorf("held body: released %d bytes, want %d", done+n, size)
	}
	return err
}

// onlyWriter hides Out's ReadFrom, so the fallback is a plain copy.
type onlyWriter struct{ io.Writer }
