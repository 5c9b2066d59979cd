package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// conclude waits for the hash of the whole file and builds the verdict.
func (d *download) conclude() (*Result, error) {
	wm, err := d.ph.finish()
	res := d.result()
	var we *writeError
	if errors.As(err, &we) {
		return res, err
	} else if err != nil {
		return res, &writeError{err: fmt.Errorf("read back %s: %w", d.part, err)}
	}
	if d.total >= 0 && wm != d.total {
		return res, fmt.Errorf("hashed %d bytes of %s, want %d", wm, d.part, d.total)
	}
	res.Bytes = wm
	sums, err := d.lateSums(d.hasher.Sums())
	if err != nil {
		return res, err
	}
	if d.mirrorSources() > 1 {
		sums, err = d.narrow(sums, res.Encoding) // a mismatch: which mirror lied?
		res.Mirrors = d.mirrorReports()
		if err != nil {
			return res, err
		}
	}
	res.setSHA256(sums)
	res.Verdict = d.wholeVerdict(sums, res.Encoding)
	res.Verdict.Warn(d.warnings...)
	warnEncoded(&res.Verdict, res.Encoding)
	return res, verdictError(res, d.req, d.refStatus != http.StatusPartialContent)
}

// wholeVerdict checks the whole file's sums against the first response's
// fields (with the pieces' Repr-Digest when it sent none: lateRef), its
// trailer and the user's digests, and after a resume the Repr-Digest the
// sidecar recorded (savedChecks).
func (d *download) wholeVerdict(sums []verify.Digest, enc string) verify.Verdict {
	v := bodyVerdict(d.lateRef(), d.trailer, sums, statusBasis(d.refStatus, "", sums).coded(enc, false, nil), d.req)
	if d.resumed {
		savedChecks(&v, d.savedRepr, d.ref.repr, sums, d.req.Policy)
	}
	return v
}

// result describes the download so far.
func (d *download) result() *Result {
	r := &Result{URL: d.url, Status: d.status, Header: d.header, ETag: d.header.Get("ETag"),
		Encoding: httpfield.ContentCoding(d.header.Values("Content-Encoding")), Strategy: StrategyFull, Pieces: 1,
		Received: d.received.Load(), Retries: int(d.retries.Load()), RequestURL: d.req.URL, answers: d.answers}
	if r.URL == "" {
		r.URL = d.req.URL
	}
	r.URL = httpfield.Redact(r.URL)
	if len(d.pieces) > 1 && d.ranged.Load() || d.resumed {
		r.Strategy, r.Pieces = StrategyRanges, len(d.pieces)
	}
	r.Mirrors = d.mirrorReports()
	d.mu.Lock()
	r.Verdict.Add(d.checks...)
	r.Verdict.Warn(d.warnings...)
	d.mu.Unlock()
	return r
}

func (d *download) warn(w string) {
	d.mu.Lock()
	d.warnings = append(d.warnings, w)
	d.mu.Unlock()
}

// openPart opens the part file; trunc starts it empty and drops a stale
// sidecar.
func (d *download) openPart(trunc bool) error {
	d.settle()
	if d.spool {
		if err := d.f.Truncate(0); err != nil {
			return &writeError{err: err}
		}
		d.pieces, d.digests, d.checks = nil, map[span]string{}, nil
		return nil
	}
	if d.f != nil {
		d.f.Close()
	}
	var f *os.File
	var err error
	if trunc {
		os.Remove(d.side)
		if d.o.Scratch {
			f, err = CreateScratchPart(d.part)
		} else {
			f, err = CreatePart(d.part, d.path)
		}
	} else {
		f, err = OpenPart(d.part)
	}
	if err != nil {
		return &writeError{err: err}
	}
	d.f, d.pieces, d.digests, d.checks = f, nil, map[span]string{}, nil
	d.mu.Lock()
	d.vouched = nil // another file
	d.mu.Unlock()
	return nil
}

// end commits a verified download, and keeps or deletes a failed one.
func (d *download) end(res *Result, err error) (*Result, error) {
	if d.f == nil {
		return res, err
	}
	if res == nil {
		res = d.result()
	}
	if err == nil {
		if cerr := d.commit(); cerr != nil {
			return res, &writeError{err: cerr}
		}
		return res, nil
	}
	defer d.closeHash()
	d.settle()
	if st, serr := d.f.Stat(); serr == nil && st.Size() > 0 && d.keep(err) {
		if serr := d.saveSidecar(); serr != nil {
			// With no record of which bytes came, -C resumes the part
			// from its end: it may hold no gap.
			os.Remove(d.side) // an earlier run's would speak for bytes cut off
			n := d.contiguous()
			res.Verdict.Warn(fmt.Sprintf("could not save the resume sidecar: %v; the part is kept up to its first gap (%d bytes)", serr, n))
			if terr := d.f.Truncate(n); terr != nil || n == 0 {
				d.f.Close()
				os.Remove(d.part)
				return res, err
			}
		}
		d.f.Close()
		res.Part = d.part
		return res, err
	}
	d.f.Close()
	os.Remove(d.part)
	os.Remove(d.side)
	return res, err
}

// contiguous is how many bytes from the part's start came without a gap,
// once the workers are done.
func (d *download) contiguous() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	done := append(spans{}, d.before...)
	for _, p := range d.pieces {
		done.add(p.start, p.at())
	}
	return done.reach(0)
}

// settle waits for the hasher's writes to the part file (landLent), so
// none lands after the file is truncated, closed or judged.
func (d *download) settle() {
	if d.hasher != nil {
		d.hasher.Flush()
	}
}

// closeHash stops the hasher's goroutines after a failure.
func (d *download) closeHash() {
	if d.hasher != nil {
		d.hasher.Close()
	}
}

// keep says whether a failed download's part stays for -C: after an
// interrupt always (as curl leaves what arrived), after a failure that
// does not prove the bytes wrong only with -C (not after the whole was
// found not to match, d.wrong, whatever error followed).
func (d *download) keep(err error) bool {
	if errors.Is(err, context.Canceled) {
		return true
	}
	bad := d.wrong || errors.Is(err, ErrMismatch) || errors.Is(err, ErrProtocol) || errors.Is(err, ErrUnverified) || errors.Is(err, ErrTooLarge)
	return d.o.Continue && !bad
}

// commit renames the verified part onto the target.
func (d *download) commit() error {
	err := d.f.Sync()
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(d.part, d.path)
	}
	if err != nil {
		os.Remove(d.part)
	}
	os.Remove(d.side)
	return err
}
