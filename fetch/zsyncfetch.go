package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// errWholeBody: a request for several ranges got the whole target (200):
// the origin does not do multipart/byteranges; its body is left unread.
var errWholeBody = errors.New("zsync: the origin answered several ranges with the whole file")

// errGotWhole stops the other workers once a 200 brought the whole target.
var errGotWhole = errors.New("zsync: the whole target came in one response")

// zsyncFetch fetches the missing blocks of a zsync download: batches of
// ranges, the first alone (its response brings the ETag and Repr-Digest
// when no HEAD was sent), the rest by parallel workers, each with
// If-Range: etag so that a changed file comes whole (200) and fails its
// block checksums rather than being spliced.
type zsyncFetch struct {
	client   *Client
	base     *Request
	m        *zsync.Matcher
	length   int64 // the control file's Length
	target   string
	parallel int
	prog     Progress

	mu       sync.Mutex
	etag     string
	version  validators  // the HEAD's, else the first response's
	header   http.Header // the first response's header
	single   bool        // the origin takes one range per request
	reqs     int
	received int64
	whole    bool     // a 200 brought the whole target
	reprs    []string // the Repr-Digest values the responses carried, each once
}

// maxReprValues bounds the different Repr-Digest values the range
// responses of one run may carry: one version has one.
const maxReprValues = 4

// noteRepr keeps the Repr-Digest of a response whose bytes are used: it
// describes the representation rebuilt as the HEAD's does, and is checked
// with it (zsyncRun.verify). f.mu is held.
func (f *zsyncFetch) noteRepr(h http.Header) error {
	v := strings.Join(h.Values(verify.ReprDigest), ", ")
	if v == "" || slices.Contains(f.reprs, v) {
		return nil
	}
	if len(f.reprs) == maxReprValues {
		return fmt.Errorf("%w: %s: the range responses carry more than %d different Repr-Digest values", ErrProtocol, httpfield.Redact(f.target), maxReprValues)
	}
	f.reprs = append(f.reprs, v)
	return nil
}

// run fetches every missing range: rounds of requests until none is
// missing, as an origin may answer several ranges with fewer parts; a
// round that brings none of them ends it.
func (f *zsyncFetch) run(ctx context.Context) error {
	left := int64(-1)
	for {
		missing := f.m.Missing()
		n := int64(0)
		for _, r := range missing {
			n += r.Len()
		}
		switch {
		case n == 0 || f.done():
			return nil
		case n == left:
			return fmt.Errorf("%w: %s: the range responses left bytes %d-%d unsent", ErrProtocol, httpfield.Redact(f.target), missing[0].Start, missing[0].End-1)
		}
		left = n
		if err := f.round(ctx, missing); err != nil {
			return err
		}
	}
}

// round asks once for every range given.
func (f *zsyncFetch) round(ctx context.Context, missing []zsync.Range) error {
	// Only missing blocks are asked for: joining two ranges by fetching the
	// present blocks between them again costs bytes, and multipart takes
	// many ranges per request anyway.
	batches := f.batches(missing)
	// The first batch alone: it may learn the ETag, or that the origin
	// answers several ranges with a 200.
	rest, err := f.first(ctx, batches)
	if err != nil || f.whole {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan []zsync.Range)
	var wg sync.WaitGroup
	var first error
	var once sync.Once
	for range min(f.parallel, len(rest)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				if err := f.batch(ctx, b); err != nil {
					once.Do(func() { first = err; cancel(err) })
				} else if f.done() {
					cancel(errGotWhole)
				}
			}
		}()
	}
feed:
	for _, b := range rest {
		select {
		case work <- b:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return first
}

// first sends batches until one is answered with ranges (or the whole
// target); when the origin answers several ranges with a 200, it goes on
// with one range per request. It returns the batches left.
func (f *zsyncFetch) first(ctx context.Context, batches [][]zsync.Range) ([][]zsync.Range, error) {
	err := f.batch(ctx, batches[0])
	if errors.Is(err, errWholeBody) {
		f.single = true
		var ranges []zsync.Range
		for _, b := range batches {
			ranges = append(ranges, b...)
		}
		batches = f.batches(ranges)
		err = f.batch(ctx, batches[0])
	}
	return batches[1:], err
}

// differs says how r is of another version than the one the run fetches
// (the HEAD's, else the first answer's, which it then becomes).
func (f *zsyncFetch) differs(r *http.Response) string {
	if r.StatusCode != http.StatusOK && r.StatusCode != http.StatusPartialContent {
		return ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.version.set {
		f.version = validatorsOf(r.Header)
	}
	return f.version.differs(r.Header)
}

func (f *zsyncFetch) done() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.whole
}

// batches groups ranges into requests: zsyncBatch ranges each, one when
// the origin does not do multipart.
func (f *zsyncFetch) batches(ranges []zsync.Range) [][]zsync.Range {
	n := zsyncBatch
	if f.single {
		n = 1
	}
	var out [][]zsync.Range
	for len(ranges) > 0 {
		k := min(n, len(ranges))
		out = append(out, ranges[:k:k])
		ranges = ranges[k:]
	}
	return out
}

// batch asks for one batch of ranges and writes them through the matcher.
func (f *zsyncFetch) batch(ctx context.Context, batch []zsync.Range) error {
	// Want-Repr-Digest as on a plain GET: an origin that sends Repr-Digest
	// only when asked proves the rebuilt file with it (noteRepr).
	req := f.base.sub(f.target)
	req.WantContent = nil // one Content-Digest per batch is not asked for
	size := int64(0)
	for _, r := range batch {
		req.Ranges = append(req.Ranges, ByteRange{First: r.Start, Last: r.End - 1})
		size += r.Len()
	}
	f.mu.Lock()
	if f.etag != "" {
		req.Header.Set("If-Range", f.etag)
	}
	id := f.reqs
	f.reqs++
	f.mu.Unlock()
	sink := &rangeSink{m: f.m, target: f.target, length: f.length, bar: f.prog.Piece(id, size, 0)}
	req.OnPart = sink.part
	ifRange := req.Header.Get("If-Range")
	shown := req.OnResponse // the caller's (-v)
	req.OnResponse = func(r *http.Response) {
		if shown != nil {
			shown(r)
		}
		sink.whole = r.StatusCode == http.StatusOK
		sink.other = f.differs(r)
		if sink.whole && ifRange != "" && r.Header.Get("ETag") != ifRange {
			// If-Range failed: the file is not the one the ETag named.
			sink.changed = changed(f.target, fmt.Sprintf("ETag %s, now %q", ifRange, r.Header.Get("ETag")))
		} else if err := lengthAgrees(f.target, f.length, r.StatusCode, r.Header); err != nil {
			sink.changed = err
		} else if r.StatusCode == http.StatusRequestedRangeNotSatisfiable {
			// Its "bytes */N" states the file's length: a file shorter
			// than the ranges asked for within the control file's Length.
			if cr, err := httpfield.ParseContentRange(r.Header.Get("Content-Range")); err == nil && cr.Total >= 0 {
				sink.changed = lengthIs(f.target, f.length, cr.Total, "Content-Range "+cr.String())
			}
		}
		sink.refuseWhole = sink.whole && len(batch) > 1
		f.mu.Lock()
		defer f.mu.Unlock()
		if r.StatusCode == http.StatusOK || r.StatusCode == http.StatusPartialContent {
			if f.header == nil {
				f.header = r.Header
			}
			if sink.changed == nil && !sink.refuseWhole { // its bytes are used
				sink.changed = f.noteRepr(r.Header)
			}
		}
		if t := r.Header.Get("ETag"); f.etag == "" && len(t) > 0 && t[0] == '"' {
			f.etag = t
		}
	}
	res, err := f.client.Do(ctx, req, sink)
	sink.bar.Done(err == nil)
	f.mu.Lock()
	f.received += sink.received
	if err == nil && (sink.whole || res.Status == http.StatusOK) {
		f.whole = true // the whole target came and was checked
	}
	if err == nil && res != nil {
		// A Repr-Digest sent in the trailer describes the file as one in
		// the header does.
		err = f.noteRepr(res.Trailer)
	}
	f.mu.Unlock()
	switch {
	case errors.Is(sink.err, errWholeBody):
		return errWholeBody
	case errors.Is(sink.err, zsync.ErrMismatch) && sink.other != "" && !errors.Is(sink.err, errChanged):
		// The block failed in an answer of another version.
		return mismatch(fmt.Errorf("%w; %v", changed(f.target, sink.other), sink.err))
	case errors.Is(sink.err, zsync.ErrMismatch):
		return mismatch(sink.err)
	case errors.Is(sink.changed, zsync.ErrMismatch):
		// What the response stated disproves the control file even when
		// no byte of its body was read (a 416): the part holds the
		// control file's blocks, of a Length the origin does not have.
		return mismatch(sink.changed)
	case err != nil && errors.Is(context.Cause(ctx), errGotWhole):
		return nil // another worker got the whole target
	case err != nil:
		return fmt.Errorf("zsync: bytes %d-%d of %s could not be fetched: %w", batch[0].Start, batch[len(batch)-1].End-1, httpfield.Redact(f.target), err)
	}
	return nil
}
