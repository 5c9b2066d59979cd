package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// mirrorSkip: a mirror's 206 shows another representation than the
// origin's (length, ETag, Repr-Digest, coding) or that it cannot serve
// ranges. The mirror is never used again. landed says the answer's bytes
// were written before it showed it (a Repr-Digest in its trailer): the
// piece is fetched again from its start (mirrorFailed).
type mirrorSkip struct {
	reason string
	landed bool
}

func (e *mirrorSkip) Error() string { return e.reason }

// mirrorSources is the number of sources the download fetches from (1:
// the origin alone). With mirrors, the plan has that many times more
// pieces: sources differ in speed, smaller pieces balance them, and a
// liar's piece wastes less.
func (d *download) mirrorSources() int {
	if d.mir == nil {
		return 1
	}
	return len(d.mir.sources)
}

// retireMirrors, when the download cannot use mirrors (the first response
// cannot be split, or the origin's file changed and it restarted as one
// stream), reports the mirrors it will not ask.
func (d *download) retireMirrors(resp *http.Response, split bool) {
	why := "the download restarted as one stream from the origin"
	if d.mir == nil {
		if !split || len(d.o.Mirrors) == 0 && len(httpfield.LinksWithRel(resp.Header.Values("Link"), "duplicate", d.o.LinkMirrors)) == 0 {
			return
		}
		d.setupMirrors(context.Background(), resp) // only to report them
		why = "the origin's response cannot be split (it needs a 200 with a strong ETag, a length and Accept-Ranges: bytes, and no digest trailer)"
	}
	ms := d.mir
	ms.mu.Lock()
	n := len(ms.sources) - 1
	for _, s := range ms.sources[1:] {
		if s.state == MirrorUnused {
			s.state, s.reason = MirrorSkipped, why
		}
		ms.reports = append(ms.reports, MirrorReport{URL: httpfield.Redact(s.url), From: s.from, State: s.state, Reason: s.reason,
			Bytes: s.written.size(), Pieces: s.pieces})
	}
	ms.sources = ms.sources[:1]
	ms.mu.Unlock()
	if n > 0 {
		d.warn("mirrors not used: " + why)
	}
}

// validator is the If-Range of a piece's request to s: the origin's
// (ifRange) for the origin and mirrors on its origin, else the mirror's
// own strong ETag once it sent one.
func (d *download) validator(s *source) string {
	if s == nil || s.origin || s.same {
		return d.ifRange()
	}
	d.mir.mu.Lock()
	defer d.mir.mu.Unlock()
	return s.etag
}

// checkPieceFrom checks a 206 from source s (nil: the origin).
func (d *download) checkPieceFrom(s *source, resp *http.Response, p *piece, from int64) error {
	if s == nil || s.origin {
		return d.checkPiece(resp, p, from)
	}
	if err := d.sameRepresentation(s, resp); err != nil {
		return err
	}
	return d.checkRange(resp, p, from)
}

// sameRepresentation checks that a mirror's answer is of the origin's
// representation: a 206 (not a 200: no ranges) of the version's by the
// origin's rule (reprOther: length, coding, Repr-Digest), with the same
// ETag on the same origin, or its own unchanged one elsewhere (an ETag is
// its server's: a mirror's may be absent, or another).
func (d *download) sameRepresentation(s *source, resp *http.Response) error {
	skip := func(f string, a ...any) error { return &mirrorSkip{reason: fmt.Sprintf(f, a...)} }
	if resp.StatusCode == http.StatusOK {
		return skip("it answered a range request with 200 (no range support, or its file changed)")
	}
	if resp.StatusCode != http.StatusPartialContent {
		return protocolErrorf("status %d to a range request, want 206", resp.StatusCode)
	}
	if why := d.reprOther(resp.Header); why != "" {
		return skip("%s: another version", why)
	}
	et := resp.Header.Get("ETag")
	if s.same {
		if et != d.etag {
			return skip("ETag %s, the origin's %s on the same origin: another version", et, d.etag)
		}
		return nil
	}
	d.mir.mu.Lock()
	defer d.mir.mu.Unlock()
	switch {
	case s.etag == "":
		s.etag = ifRangeETag(et)
	case et != s.etag:
		return skip("its ETag changed from %s to %s", s.etag, et)
	}
	return nil
}

// narrow runs after the whole file hashed to sums with mirrors: when the
// sums do not match, each mirror's bytes still in the file are fetched
// again from the origin and compared; a mirror whose bytes differ is named
// corrupt, the origin's bytes replace them, and the file is hashed again.
// It returns the sums to judge (the new ones after a repair); a repaired
// file that cannot be read back is the output's I/O error (ErrOutput).
func (d *download) narrow(sums []verify.Digest, enc string) ([]verify.Digest, error) {
	if v := d.wholeVerdict(sums, enc); len(v.Mismatches()) == 0 {
		return sums, nil
	}
	// The file holds wrong bytes: whatever fails from here (a repair that
	// cannot be written or read back), it is not kept for -C (keep).
	d.wrong = true
	ms := d.mir
	ms.mu.Lock()
	type suspect struct {
		s  *source
		sp spans
	}
	var sus []suspect
	for _, s := range ms.sources[1:] {
		if len(s.written) > 0 {
			sus = append(sus, suspect{s, append(spans(nil), s.written...)})
		}
	}
	ms.mu.Unlock()
	if len(sus) == 0 {
		return sums, nil
	}
	repaired := false
	for _, x := range sus {
		at, err := d.compareSpans(x.sp)
		if errors.Is(err, ErrOutput) {
			return sums, err // the file could not be read or repaired: its error, not the mismatch
		}
		if err != nil {
			d.warn(fmt.Sprintf("could not fetch mirror %s's bytes again from the origin to compare: %v", httpfield.Redact(x.s.url), err))
			return sums, nil // the mismatch stands
		}
		if at >= 0 {
			repaired = true
			reason := fmt.Sprintf("served wrong bytes: byte %d differs from the origin's (found by fetching its %d bytes again from the origin)", at, x.sp.size())
			ms.drop(x.s, MirrorCorrupt, reason)
			ms.mu.Lock()
			x.s.written = nil // the origin's bytes are there now
			ms.mu.Unlock()
			d.warn(fmt.Sprintf("mirror %s %s: replaced by the origin's", httpfield.Redact(x.s.url), reason))
		}
	}
	if !repaired {
		return sums, nil
	}
	algs := map[string]bool{} // those of sums: the pieces' late ones too
	for _, s := range sums {
		algs[s.Algorithm] = true
	}
	again, err := d.rehash(pick(algs))
	if err != nil {
		return sums, &writeError{err: fmt.Errorf("read back %s after the repair: %w", d.part, err)}
	}
	return again, nil
}

// compareSpans fetches sp from the origin, compares each byte with the
// file, and writes the origin's bytes where they differ. It returns the
// first differing offset, or -1. Bytes written back are unvouched with
// the write (writeBackUnvouched): a sidecar listing the same spans syncs
// them first.
func (d *download) compareSpans(sp spans) (int64, error) {
	first := int64(-1)
	want, have := make([]byte, copyBufSize), make([]byte, copyBufSize)
	for _, x := range sp {
		r, err := d.send(d.mir.ctx, http.MethodGet, x.start, x.end, d.ifRange())
		if err != nil {
			return first, err
		}
		err = d.checkPiece(r.resp, &piece{id: -1, start: x.start, end: x.end}, x.start)
		if errors.Is(err, errRestart) {
			err = protocolErrorf("the origin's file changed")
		}
		for off := x.start; err == nil && off < x.end; {
			b := want[:min(int64(len(want)), x.end-off)]
			var n int
			if n, err = io.ReadFull(r.resp.Body, b); err != nil {
				break
			}
			d.received.Add(int64(n))
			if _, err = d.f.ReadAt(have[:n], off); err != nil {
				err = &writeError{err: fmt.Errorf("read back %s: %w", d.part, err)}
				break
			}
			if i := firstDiff(b, have[:n]); i >= 0 {
				if first < 0 {
					first = off + int64(i)
				}
				err = d.writeBackUnvouched(b, off)
			}
			off += int64(n)
		}
		r.close()
		if err != nil {
			return first, err
		}
	}
	return first, nil
}

// writeBackUnvouched writes b at off over a mirror's wrong bytes and
// unvouches them in one hold of d.mu, which a sidecar's save holds
// throughout: no save can come between the write and the unvouching and
// list the rewritten bytes without syncing them first.
func (d *download) writeBackUnvouched(b []byte, off int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.vouched = nil
	if _, err := writeBack(d.f, b, off); err != nil {
		return &writeError{err: err}
	}
	return nil
}

// writeBack writes the origin's bytes over a mirror's wrong ones (a
// variable for tests, which make it fail).
var writeBack = func(f *os.File, b []byte, off int64) (int, error) { return f.WriteAt(b, off) }

// firstDiff is the index of the first byte where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
