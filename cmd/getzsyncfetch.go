package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/zsync"
)

// fetchMissing asks for the missing ranges, a batch per request, each with
// If-Range: etag (the HEAD's; without one, the first range response's), so
// that a changed file comes whole (200) and fails its block checksums
// rather than being spliced. It returns the requests sent and the body
// bytes received.
func fetchMissing(ctx context.Context, client *fetch.Client, base *fetch.Request, m *zsync.Matcher, target, etag string) (int, int64, error) {
	ranges := zsync.Coalesce(m.Missing(), zsyncCoalesce)
	reqs, received := 0, int64(0)
	for len(ranges) > 0 {
		batch := ranges[:min(zsyncBatch, len(ranges))]
		ranges = ranges[len(batch):]
		req := &fetch.Request{URL: target, Header: base.Header.Clone(), Retry: base.Retry, Policy: base.Policy}
		for _, r := range batch {
			req.Ranges = append(req.Ranges, fetch.ByteRange{First: r.Start, Last: r.End - 1})
		}
		if etag != "" {
			req.Header.Set("If-Range", etag)
		}
		sink := &rangeSink{m: m, ranges: batch}
		req.OnResponse = func(r *http.Response) {
			sink.whole = r.StatusCode == http.StatusOK
			if t := r.Header.Get("ETag"); etag == "" && len(t) > 0 && t[0] == '"' {
				etag = t
			}
		}
		reqs++
		res, err := client.Do(ctx, req, sink)
		received += sink.received
		if errors.Is(sink.err, zsync.ErrMismatch) {
			return reqs, received, withExit(ExitIntegrity, sink.err)
		}
		if err != nil {
			return reqs, received, err
		}
		if sink.whole || res.Status == http.StatusOK {
			break // the whole target came and was checked
		}
	}
	return reqs, received, nil
}

// rangeSink hands the bytes of a batch's ranges, which arrive one after
// another, to the matcher at their offsets; a 200 is the whole target.
type rangeSink struct {
	m        *zsync.Matcher
	ranges   []zsync.Range
	whole    bool
	i        int   // range being written
	left     int64 // its bytes still to come
	fw       *zsync.FetchWriter
	err      error // the first error of Write
	received int64 // bytes written, retried attempts included
}

func (s *rangeSink) Write(p []byte) (int, error) {
	n, err := s.write(p)
	s.received += int64(n)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

func (s *rangeSink) write(p []byte) (int, error) {
	n := len(p)
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
			s.fw, s.i = nil, s.i+1
		}
	}
	return n, nil
}

func (s *rangeSink) open() error {
	var err error
	if s.whole {
		s.fw, err = s.m.FetchWriter(0)
		return err
	}
	if s.i >= len(s.ranges) {
		return errors.New("zsync: the origin sent more bytes than the ranges asked for")
	}
	r := s.ranges[s.i]
	s.left = r.Len()
	s.fw, err = s.m.FetchWriter(r.Start)
	return err
}

// Reset starts the batch over (a retry); blocks already checked stay.
func (s *rangeSink) Reset() error { s.i, s.fw, s.left, s.err = 0, nil, 0, nil; return nil }

func (s *rangeSink) Commit() error {
	if s.fw != nil {
		return s.fw.Close()
	}
	return nil
}

func (s *rangeSink) Abort() error { return nil }

// memSink holds a small body (a control file) in memory.
type memSink struct {
	buf bytes.Buffer
	max int
}

func (s *memSink) Write(p []byte) (int, error) {
	if s.buf.Len()+len(p) > s.max {
		return 0, fmt.Errorf("control file larger than %d bytes", s.max)
	}
	return s.buf.Write(p)
}

func (s *memSink) Reset() error  { s.buf.Reset(); return nil }
func (s *memSink) Commit() error { return nil }
func (s *memSink) Abort() error  { return nil }
