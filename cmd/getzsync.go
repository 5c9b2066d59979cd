package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/zsync"
)

// zsync client (hdig get --zsync URL.zsync --seed OLD -o OUT): read the
// control file, find its blocks in the seeds, fetch the missing ranges of
// the target with If-Range, check every block's MD4 as it arrives and the
// whole file's SHA-1 before renaming OUT.hdig-part onto OUT.

const (
	maxControlFile  = 256 << 20 // bytes of a .zsync accepted
	zsyncBatch      = 16        // ranges asked for per request
	zsyncCoalesce   = 4096      // present bytes fetched again to join two ranges
	zsyncSeedBuffer = 1 << 20
)

func runGetZsync(c *cobra.Command, ios *IOStreams, o *getOptions) error {
	if !o.Zsync {
		return usageErrorf("--seed applies only with --zsync")
	}
	if o.Output == "" {
		return usageErrorf("--zsync needs -o FILE: blocks are written in place, then checked")
	}
	if o.Range != "" || o.Continue || o.Head || o.UploadFile != "" || len(o.Data) > 0 || o.DataBinary != "" {
		return usageErrorf("--zsync cannot be used with -r, -C, -I or a request body")
	}
	// The control file's SHA-1 is all --zsync checks: a check asked for
	// and not made would be a verdict saying more than the truth.
	switch {
	case len(o.Expect.Expect) > 0:
		return usageErrorf("--zsync cannot be used with --expect: only the control file's SHA-1 is checked")
	case o.Expect.ChecksumFile != "":
		return usageErrorf("--zsync cannot be used with --checksum-file: only the control file's SHA-1 is checked")
	case o.RequireDigest:
		return usageErrorf("--zsync cannot be used with --require-digest: only the control file's SHA-1 is checked")
	}
	if err := o.resolveOutput(); err != nil {
		return err
	}
	if o.special {
		return usageErrorf("--zsync writes blocks in place: -o %s is a device or FIFO, want a regular file", o.Output)
	}
	lim, err := o.Limits.limits()
	if err != nil {
		return err
	}
	client, err := fetch.NewClient(fetch.Options{FollowRedirects: o.Location, Insecure: o.Insecure, CACert: o.CACert, Timeout: o.Timeout})
	if err != nil {
		return withExit(ExitUsage, err)
	}
	ctx := c.Context()
	ctl, target, err := fetchControl(ctx, client, o)
	if err != nil {
		return err
	}
	if lim.MaxFileSize > 0 && ctl.Length > lim.MaxFileSize {
		return withExit(ExitNetwork, fmt.Errorf("%s: refused: the control file's target is %d bytes, over --max-filesize %d", o.URL, ctl.Length, lim.MaxFileSize))
	}
	part := o.Output + fetch.PartSuffix
	f, err := os.OpenFile(part, os.O_CREATE|os.O_TRUNC|os.O_RDWR, 0o644)
	if err != nil {
		return usageErrorf("%v", err)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(part)
		}
	}()
	m := zsync.NewMatcher(ctl, f)
	for _, s := range o.Seeds {
		if err := seedFrom(m, s); err != nil {
			return err
		}
	}
	fromSeeds := m.FromSeed
	reqs, err := fetchMissing(ctx, client, o, m, target)
	if err != nil {
		return err
	}
	if err := f.Truncate(ctl.Length); err != nil {
		return err
	}
	if err := m.Finish(f); err != nil {
		return withExit(ExitIntegrity, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(part, o.Output); err != nil {
		return err
	}
	done = true
	if !o.Silent {
		fmt.Fprintf(ios.ErrOut, "zsync: %s: %d bytes from seeds, %d fetched in %d requests; SHA-1 verified\n",
			o.Output, fromSeeds, m.Fetched, reqs)
	}
	return nil
}

// fetchControl gets and parses the control file and resolves the target's
// URL against the control file's.
func fetchControl(ctx context.Context, client *fetch.Client, o *getOptions) (*zsync.Control, string, error) {
	req, err := o.request()
	if err != nil {
		return nil, "", err
	}
	defer req.Body.Close()
	sink := &memSink{max: maxControlFile}
	if _, err := client.Do(ctx, req, sink); err != nil {
		return nil, "", err
	}
	ctl, err := zsync.Read(bytes.NewReader(sink.buf.Bytes()))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %v", fetch.ErrProtocol, o.URL, err)
	}
	if len(ctl.URLs) == 0 {
		return nil, "", fmt.Errorf("%w: %s: the control file names no URL for the target", fetch.ErrProtocol, o.URL)
	}
	base, _ := url.Parse(o.URL)
	ref, err := url.Parse(ctl.URLs[0])
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: URL %q: %v", fetch.ErrProtocol, o.URL, ctl.URLs[0], err)
	}
	u := base.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", fmt.Errorf("%w: %s: target URL %q: want http or https", fetch.ErrProtocol, o.URL, u)
	}
	return ctl, u.String(), nil
}

func seedFrom(m *zsync.Matcher, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return usageErrorf("--seed: %v", err)
	}
	defer f.Close()
	if err := m.Seed(f); err != nil {
		return usageErrorf("--seed %s: %v", name, err)
	}
	return nil
}

// fetchMissing asks for the missing ranges, a batch per request. Every
// request after the first carries If-Range with the first's strong ETag:
// a changed target comes whole (200) and fails its block checksums.
func fetchMissing(ctx context.Context, client *fetch.Client, o *getOptions, m *zsync.Matcher, target string) (int, error) {
	ranges := zsync.Coalesce(m.Missing(), zsyncCoalesce)
	etag, reqs := "", 0
	for len(ranges) > 0 {
		batch := ranges[:min(zsyncBatch, len(ranges))]
		ranges = ranges[len(batch):]
		req := &fetch.Request{URL: target, Header: http.Header{}, Retry: o.Retry}
		for _, r := range batch {
			req.Ranges = append(req.Ranges, fetch.ByteRange{First: r.Start, Last: r.End - 1})
		}
		if etag != "" {
			req.Header.Set("If-Range", etag)
		}
		sink := &rangeSink{m: m, ranges: batch}
		req.OnResponse = func(r *http.Response) {
			sink.whole = r.StatusCode == http.StatusOK
			if t := r.Header.Get("ETag"); etag == "" && strings.HasPrefix(t, `"`) {
				etag = t
			}
		}
		reqs++
		res, err := client.Do(ctx, req, sink)
		if errors.Is(sink.err, zsync.ErrMismatch) {
			return reqs, withExit(ExitIntegrity, sink.err)
		}
		if err != nil {
			return reqs, err
		}
		if sink.whole || res.Status == http.StatusOK {
			break // the whole target came and was checked
		}
	}
	return reqs, nil
}

// rangeSink hands the bytes of a batch's ranges, which arrive one after
// another, to the matcher at their offsets; a 200 is the whole target.
type rangeSink struct {
	m      *zsync.Matcher
	ranges []zsync.Range
	whole  bool
	i      int   // range being written
	left   int64 // its bytes still to come
	fw     *zsync.FetchWriter
	err    error // the first error of Write
}

func (s *rangeSink) Write(p []byte) (int, error) {
	n, err := s.write(p)
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
