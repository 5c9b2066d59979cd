package fetch

import (
	"errors"
	"fmt"
	"io"

	"github.com/hdig/hdig/zsync"
)

// controlSink parses a control file as its body arrives: the block table
// goes straight into the Control, so memory holds the parsed table, never
// the file's bytes as well (a 256 MiB target at 2 KiB blocks has a 2.6 MB
// control file). It takes at most max bytes.
type controlSink struct {
	max  int64
	n    int64
	pw   *io.PipeWriter
	done chan struct{}
	ctl  *zsync.Control
	err  error // the parse's
}

// errControlAborted ends the parse of a body that will not be used.
var errControlAborted = errors.New("the control file's response was abandoned")

// A Length over maxLength (0: none) ends the parse before the block
// table (*zsync.OverMaxError).
func newControlSink(max, maxLength int64) *controlSink {
	pr, pw := io.Pipe()
	s := &controlSink{max: max, pw: pw, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.ctl, s.err = zsync.ReadMax(pr, maxLength)
		if s.err != nil {
			pr.CloseWithError(s.err) // the next Write fails: the body stops
			return
		}
		pr.Close()
	}()
	return s
}

func (s *controlSink) Write(p []byte) (int, error) {
	if s.n+int64(len(p)) > s.max {
		return 0, fmt.Errorf("control file larger than %d bytes", s.max)
	}
	n, err := s.pw.Write(p)
	s.n += int64(n)
	return n, err
}

// Reset allows a retry only before any byte was parsed.
func (s *controlSink) Reset() error {
	if s.n > 0 {
		return errors.New("a control file being parsed cannot start over")
	}
	return nil
}

// Commit ends the body: the parse sees its end.
func (s *controlSink) Commit() error {
	s.pw.Close()
	<-s.done
	return nil
}

func (s *controlSink) Abort() error {
	s.pw.CloseWithError(errControlAborted)
	<-s.done
	return nil
}

// result is the parsed control file, once Commit or Abort returned.
func (s *controlSink) result() (*zsync.Control, error) { return s.ctl, s.err }
