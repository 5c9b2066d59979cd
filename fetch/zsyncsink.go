package fetch

import (
	"errors"

	"github.com/hdig/hdig/zsync"
)

// rangeSink hands the bytes of a batch's parts, which arrive one after
// another, to the matcher at the offsets their Content-Range gives (the
// origin may send them in another order than asked, or only some: what
// is still missing is asked for again); a 200 is the whole target.
type rangeSink struct {
	m           *zsync.Matcher
	target      string // the file's URL, for messages
	length      int64  // the control file's Length
	bar         PieceProgress
	whole       bool
	refuseWhole bool   // a 200 to several ranges: not read (errWholeBody)
	changed     error  // a 200 to If-Range with another ETag: not read
	other       string // how the answer is of another version (validators.differs)
	left        int64  // bytes of the part being written still to come
	wholeN      int64  // bytes of a 200's body so far
	fw          *zsync.FetchWriter
	err         error // the first error of Write
	received    int64 // bytes written, retried attempts included
}

func (s *rangeSink) Write(p []byte) (int, error) {
	if s.changed != nil {
		s.err = s.changed
		return 0, s.changed
	}
	if s.refuseWhole {
		s.err = errWholeBody
		return 0, errWholeBody
	}
	n, err := s.write(p)
	s.received += int64(n)
	s.bar.Add(n)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

func (s *rangeSink) write(p []byte) (int, error) {
	n := len(p)
	if s.whole {
		// A 200 that states no length (chunked) tells it by its end.
		if s.wholeN+int64(n) > s.length {
			return 0, lengthIs(s.target, s.length, s.wholeN+int64(n), "its 200's body, at least")
		}
		s.wholeN += int64(n)
	}
	for len(p) > 0 {
		if s.fw == nil {
			if err := s.open(); err != nil {
				return n - len(p), err
			}
		}
		k := int64(len(p))
		if !s.whole {
			k = min(k, s.left)
		}
		if _, err := s.fw.Write(p[:k]); err != nil {
			return n - len(p), err
		}
		p, s.left = p[k:], s.left-k
		if !s.whole && s.left == 0 {
			if err := s.fw.Close(); err != nil {
				return n - len(p), err
			}
			s.fw = nil
		}
	}
	return n, nil
}

func (s *rangeSink) open() error {
	if !s.whole {
		return errors.New("zsync: the origin sent bytes outside the parts its Content-Range named")
	}
	var err error
	s.fw, err = s.m.FetchWriter(0)
	return err
}

// part starts a part of a 206 (Request.OnPart): its bytes go from
// its first byte on, which must start a block.
func (s *rangeSink) part(cr ContentRange) error {
	err := func() error {
		if s.fw != nil { // the part before ended short of its length
			return errors.New("zsync: a part of the range response ended early")
		}
		if cr.Total >= 0 {
			if err := lengthIs(s.target, s.length, cr.Total, "Content-Range "+cr.String()); err != nil {
				return err
			}
		}
		fw, err := s.m.FetchWriter(cr.First)
		if err != nil {
			return err
		}
		s.fw, s.left = fw, cr.Len()
		return nil
	}()
	if err != nil && s.err == nil {
		s.err = err
	}
	return err
}

// Reset starts the batch over (a retry); blocks already checked stay.
func (s *rangeSink) Reset() error { s.fw, s.left, s.wholeN, s.err = nil, 0, 0, nil; return nil }

func (s *rangeSink) Commit() error {
	if s.whole && s.wholeN != s.length && s.changed == nil && !s.refuseWhole {
		s.err = lengthIs(s.target, s.length, s.wholeN, "its 200's body")
		return s.err
	}
	if s.fw != nil {
		return s.fw.Close()
	}
	return nil
}

func (s *rangeSink) Abort() error { return nil }
