package fetch

import (
	"context"
	"errors"
	"fmt"

	"github.com/hdig/hdig/httpfield"
)

// The workers of a download with mirrors: one loop per connection, which
// takes pieces from the scheduler (mirrorsched.go) for its source and
// decides what a failure means: the origin's fails the download, a
// mirror's drops the mirror (mirrors.go says when it is corrupt, skipped
// or dropped).

// sourceWorker fetches pieces from s until none is left for it. A
// failure of the origin fails the download; a mirror's drops the mirror
// and puts its piece back.
func (d *download) sourceWorker(ctx context.Context, s *source, p *piece, r *reply, mode bodyMode, fail func(error)) {
	ms := d.mir
	buf := make([]byte, copyBufSize)
	for {
		if p == nil {
			s = ms.successor(s)
			if p = ms.take(ctx, s); p == nil {
				return
			}
		}
		pctx, cancel := context.WithCancelCause(ctx)
		h := ms.run(p, s, cancel)
		var err error
		if s.origin {
			err = d.piece(pctx, p, r, mode, buf, nil)
		} else {
			err = d.mirrorPiece(pctx, s, p, buf)
		}
		cause := context.Cause(pctx)
		taken := takenAway(err, cause) && ctx.Err() == nil
		var ferr error
		if err != nil && !taken && ctx.Err() == nil && !s.origin {
			ferr = d.mirrorFailed(s, p, err)
		}
		ms.release(p, h, err == nil)
		cancel(nil)
		switch {
		case ferr != nil:
			fail(ferr)
			return
		case err == nil || taken && cause == errStolen:
		case ctx.Err() != nil:
			return
		case s.origin:
			fail(err)
			return
		default:
			// The mirror is dropped and its piece queued again; this
			// connection moves on (successor).
		}
		p, r, mode = nil, nil, modeRange
	}
}

// takenAway says err, a piece's failure whose context was cancelled for
// cause, is the piece taken away (stolen, or its mirror dropped), not
// this worker's failure, unless its answer spoke against its source:
// wrong bytes (a pieceMismatch) or another version (a mirrorSkip, its
// bytes landed or not). Those go to mirrorFailed whatever the cancel
// raced with, so a landed piece is rewound (else the thief finds its
// bytes on disk, onDisk counts it done, and only the whole file's proof
// catches them) and the mirror is dropped.
func takenAway(err, cause error) bool {
	var pm *pieceMismatch
	var skip *mirrorSkip
	return err != nil && !errors.As(err, &pm) && !errors.As(err, &skip) && (cause == errStolen || cause == errDropped)
}

// successor is the source a connection of s works for next: s while it is
// in use; once it is dropped, the fastest source still in use (the origin
// while none is measured faster).
func (ms *mirrorSet) successor(s *source) *source {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if !s.gone {
		return s
	}
	best := ms.sources[0]
	for _, m := range ms.sources[1:] {
		if !m.gone && m.rate() > best.rate() {
			best = m
		}
	}
	return best
}

// mirrorPiece fetches piece p's missing bytes from mirror s, once.
func (d *download) mirrorPiece(ctx context.Context, s *source, p *piece, buf []byte) error {
	if s.from == "link" {
		ctx = context.WithValue(ctx, hopRuleKey{}, d.url)
	}
	bar := d.prog.Piece(p.id, p.end-p.start, p.next.Load())
	err := d.attempt(ctx, p, nil, modeRange, buf, bar, s)
	bar.Done(err == nil)
	if err == nil {
		d.pieceDone(p)
	}
	return err
}

// mirrorFailed drops mirror s after err on piece p. Wrong bytes (a piece
// failing the mirror's Content-Digest) make it corrupt and p is fetched
// again from its start, as are bytes of another version (a mirrorSkip
// once they landed); other failures keep p's bytes so far. A non-nil
// return fails the download (p could not be rewound).
func (d *download) mirrorFailed(s *source, p *piece, err error) error {
	var pm *pieceMismatch
	var skip *mirrorSkip
	switch {
	case errors.As(err, &pm):
		d.mir.drop(s, MirrorCorrupt, fmt.Sprintf("served wrong bytes: %s %s %s mismatch", pm.where(), pm.check.Field, pm.check.Algorithm))
		d.warn(fmt.Sprintf("mirror %s served wrong bytes (%s failed its Content-Digest %s): dropped, its pieces fetched elsewhere", httpfield.Redact(s.url), pm.where(), pm.check.Algorithm))
		if !d.refetch(p, pm) {
			return pm
		}
		d.mir.forget(p.start, p.end)
	case errors.As(err, &skip):
		d.mir.drop(s, MirrorSkipped, skip.reason)
		d.warn(fmt.Sprintf("mirror %s not used: %s", httpfield.Redact(s.url), skip.reason))
		if skip.landed {
			if rerr := d.rewind(p); rerr != nil {
				return &writeError{err: fmt.Errorf("hash again after mirror %s's piece %d of another version: %w", httpfield.Redact(s.url), p.id, rerr)}
			}
			d.mir.forget(p.start, p.end)
		}
	default:
		d.mir.drop(s, MirrorDropped, err.Error())
		d.warn(fmt.Sprintf("mirror %s failed: %v; its pieces fetched elsewhere", httpfield.Redact(s.url), err))
	}
	return nil
}
