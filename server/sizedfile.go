package server

import (
	"errors"
	"io"
	"os"
)

// smallBody is the largest body copied through the response buffer
// rather than with sendfile: headers and body then leave in one write.
const smallBody = 16 << 10

// sizedFile is what http.ServeContent reads a file through. ServeContent
// seeks to the end and back to learn the size; sizedFile answers from the
// size Stat gave and only moves the file's offset when bytes are read
// from somewhere else than where it is (a range), saving two system calls
// per request.
type sizedFile struct {
	f    *os.File
	size int64
	pos  int64 // the offset ServeContent asked for
	real int64 // the file's offset
}

func newSizedFile(f *os.File, size int64) *sizedFile {
	return &sizedFile{f: f, size: size}
}

var errNegativeOffset = errors.New("seek to a negative offset")

func (s *sizedFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += s.pos
	case io.SeekEnd:
		off += s.size
	}
	if off < 0 {
		return 0, errNegativeOffset
	}
	s.pos = off
	return off, nil
}

// sync moves the file's offset to pos.
func (s *sizedFile) sync() error {
	if s.pos == s.real {
		return nil
	}
	if _, err := s.f.Seek(s.pos, io.SeekStart); err != nil {
		return err
	}
	s.real = s.pos
	return nil
}

func (s *sizedFile) Read(p []byte) (int, error) {
	if err := s.sync(); err != nil {
		return 0, err
	}
	n, err := s.f.Read(p)
	s.pos += int64(n)
	s.real = s.pos
	return n, err
}

// sendFile copies the n bytes of a *io.LimitedReader of a sizedFile (what
// ServeContent hands to ReadFrom): bytes in memory in one write, a small
// body through w, so it joins
// the headers in the response buffer, a larger one as a LimitedReader of
// the *os.File, which net/http sends with sendfile. ok is false for any
// other source.
func sendFile(w io.Writer, rf io.ReaderFrom, src io.Reader) (n int64, err error, ok bool) {
	lr, isLimited := src.(*io.LimitedReader)
	if !isLimited {
		return 0, nil, false
	}
	if m, isMem := lr.R.(*memContent); isMem {
		n, err = m.writeTo(w, lr.N)
		lr.N -= n
		return n, err, true
	}
	sf, isSized := lr.R.(*sizedFile)
	if !isSized {
		return 0, nil, false
	}
	if lr.N <= smallBody {
		n, err = io.Copy(writerOnly{w}, lr)
		return n, err, true
	}
	if err := sf.sync(); err != nil {
		return 0, err, true
	}
	n, err = rf.ReadFrom(&io.LimitedReader{R: sf.f, N: lr.N})
	lr.N -= n
	sf.pos += n
	sf.real = sf.pos
	return n, err, true
}
