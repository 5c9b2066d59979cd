package fetch

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// HeldSink holds a body back until it is verified: in memory up to Limit
// bytes, then in a temporary file (in Dir; else beside Out when Out is a
// regular file, else in TMPDIR) that is unlinked at once, so nothing is
// left behind whatever happens. Commit releases it to
// Out: from the file by a kernel-side copy when Out is a file, pipe or
// socket (release), so the body is not read back through user space and
// memory stays bounded whatever its size.
type HeldSink struct {
	Out   io.Writer
	Limit int
	Dir   string // for the spill file; "" = os.TempDir()
	// Spool, if set, makes the spill file for a body of the length given
	// (-1: not known) instead: an anonymous file in the cache, which can
	// become a cached version without a copy (spoolIn). Where it fails
	// (the cache could not keep such a body), the file is made in Dir.
	Spool func(size int64) (*os.File, error)

	expected int64 // the body's length, once known (expect), plus one
	inStore  bool  // file was made by Spool

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
		f, err := s.newSpill()
		if err != nil {
			return 0, fmt.Errorf("spill held body to disk: %w", err)
		}
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

// newSpill makes an empty spill file that leaves nothing behind: an
// anonymous one from Spool, else one in Dir (tempSpill).
func (s *HeldSink) newSpill() (*os.File, error) {
	if s.Spool != nil {
		if f, err := s.Spool(s.expected - 1); err == nil {
			s.inStore = true
			return f, nil
		}
	}
	s.inStore = false
	return s.tempSpill()
}

// tempSpill makes an empty spill file in Dir, unlinked at once: the open
// file stays usable, nothing is left behind. Without a Dir, a spill for an
// Out that is a regular file (stdout redirected to one) is first made
// beside it (spillBeside), on the filesystem it will be released to.
func (s *HeldSink) tempSpill() (*os.File, error) {
	if s.Dir == "" {
		if f, err := spillBeside(s.Out); err == nil {
			return f, nil
		}
	}
	f, err := os.CreateTemp(s.Dir, "hdig-held-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

// expect says the body to come is n bytes long (-1: not known), before
// any of it is written: Spool is asked for a file that size.
func (s *HeldSink) expect(n int64) { s.expected = max(n, -1) + 1 }

// respool, now that the body's length is known (n, -1 if not), replaces
// the empty spill file with one from Spool if Spool takes a body that
// long, or with one in Dir if it no longer does (a restart that brought
// another length), and returns the new file; nil if the file stays. Where
// no file can be made in Dir the spool stays in the cache: the body is not
// kept there (PutVerified refuses its length), it only takes room.
func (s *HeldSink) respool(n int64) *os.File {
	if s.file == nil || s.Spool == nil {
		return nil
	}
	if fi, err := s.file.Stat(); err != nil || fi.Size() != 0 {
		return nil
	}
	s.expect(n)
	f, err := s.Spool(n)
	inStore := err == nil
	switch {
	case inStore && s.inStore:
		f.Close()
		return nil
	case !inStore && !s.inStore:
		return nil
	case !inStore:
		if f, err = s.tempSpill(); err != nil {
			return nil
		}
	}
	s.file.Close()
	s.file, s.size, s.inStore = f, 0, inStore
	return f
}

func (s *HeldSink) limit() int {
	if s.Limit > 0 {
		return s.Limit
	}
	return DefaultHoldLimit
}

// Reset discards what was held, and the length expected of it.
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
	// A spool in the cache may be a cached version now (storeHeld), read
	// by other processes after their check: it is never punched.
	return release(s.Out, s.file, s.size, !s.inStore)
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
	s.expected = 0
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file, s.size, s.inStore = nil, 0, false
	return err
}

// release copies the first size bytes of the spill file f to out: by the
// kernel where it can (kernelRelease), then, from where that stopped, through
// a buffer. With punch, it is f's last reader and nobody else can open f:
// what was copied is punched out of f as it goes.
func release(out io.Writer, f *os.File, size int64, punch bool) error {
	var done int64
	if o, ok := out.(*os.File); ok {
		n, err := kernelRelease(o, f, size, punch)
		if err != nil {
			return err
		}
		done = n
	}
	if done == size {
		return nil
	}
	n, err := copyOut(out, f, done, size, punch)
	userCopied.Add(n)
	if err == nil && n != size-done {
		err = fmt.Errorf("held body: released %d bytes, want %d", done+n, size)
	}
	return err
}

// copyOut copies the bytes [from, size) of f to out through a buffer and
// returns how many it copied. With punch, every releaseStep written is
// punched out of f: a Write keeps no reference to its bytes.
func copyOut(out io.Writer, f *os.File, from, size int64, punch bool) (int64, error) {
	buf := make([]byte, copyBufSize)
	off, punched := from, from
	for off < size {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if k > 0 {
			w, werr := out.Write(buf[:k])
			off += int64(w)
			if werr == nil && w != k {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				return off - from, werr
			}
		}
		if punch && (off-punched >= releaseStep || off == size) {
			punchFile(f, punched, off-punched)
			punched = off
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return off - from, err
		}
	}
	return off - from, nil
}

// releaseStep is how much of the spool copyOut lets stand before punching.
const releaseStep = 16 << 20
