package fetch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// The piece scheduler of a download with mirrors. Every source (the origin
// and each mirror) runs connsPerSource workers; each takes the first
// pending piece, so a fast source takes more pieces than a slow one. The
// connections of a dropped mirror move to the fastest source left. When
// none is pending, an idle worker takes over the rest of a piece in flight
// on a source at most half as fast as its own (work stealing): the slow
// request is cancelled, and the thief asks for the piece's missing bytes,
// from where the slow one stopped. Nothing is fetched twice.

// errStolen cancels a piece taken over by a faster source; errDropped the
// pieces in flight on a mirror that was dropped.
var (
	errStolen  = errors.New("piece taken over by a faster source")
	errDropped = errors.New("the mirror was dropped")
)

// Stealing thresholds: a piece is taken over only when enough of it is
// left, from a source measured for long enough, and the thief is at least
// stealFactor times faster.
const (
	minSteal     = 256 << 10
	stealFactor  = 2.0
	measureAfter = time.Second
	rescheduleAt = 250 * time.Millisecond
)

// holder is a piece in flight: the source fetching it and how to stop it.
type holder struct {
	src      *source
	cancel   context.CancelCauseFunc
	released chan struct{}
	stolen   bool
	ok       bool  // it fetched the piece (set by release)
	from     int64 // p.at() when it started
	started  time.Time
}

// worthStealing says whether a thief of rate thief (bytes per second per
// connection, 0 unknown) should take over left bytes from a holder of rate
// holder (0: too early to say).
func worthStealing(left int64, holder, thief float64) bool {
	return left >= minSteal && holder > 0 && thief >= stealFactor*holder
}

// holderRate is the rate of a piece in flight: of this request once it has
// run measureAfter, else of its source's finished requests.
func (h *holder) rate(p *piece, now time.Time) float64 {
	if el := now.Sub(h.started); el >= measureAfter {
		// A stalled request counts as one byte in the time: slow.
		return float64(max(p.at()-h.from, 1)) / el.Seconds()
	}
	return h.src.rate()
}

// victim picks the piece in flight that a worker of s would finish the
// soonest compared with its holder. mu held.
func (ms *mirrorSet) victim(s *source, now time.Time) (*piece, *holder) {
	thief := s.rate()
	var best *piece
	bestTime := 0.0
	for p, h := range ms.running {
		if h.stolen || h.src == s {
			continue
		}
		left, hr := p.end-p.at(), h.rate(p, now)
		if !worthStealing(left, hr, thief) {
			continue
		}
		if t := float64(left) / hr; t > bestTime || math.IsInf(t, 1) {
			best, bestTime = p, t
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, ms.running[best]
}

// take returns the next piece for source s: the first pending one, else
// one taken over from a slower source; nil when s is gone, the download
// over, or every piece done.
func (ms *mirrorSet) take(ctx context.Context, s *source) *piece {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for {
		if ctx.Err() != nil || s.gone || ms.done == ms.total {
			return nil
		}
		if len(ms.pending) > 0 {
			p := ms.pending[0]
			ms.pending = ms.pending[1:]
			if ms.onDisk(p) {
				continue
			}
			return p
		}
		if p, h := ms.victim(s, time.Now()); p != nil {
			h.stolen = true
			h.cancel(errStolen)
			ms.mu.Unlock()
			<-h.released
			ms.mu.Lock()
			if h.ok || ms.onDisk(p) {
				continue // it finished before it stopped
			}
			return p
		}
		ms.cond.Wait()
	}
}

// onDisk counts p done when all its bytes are on disk although the request
// that brought them failed after the last byte (a cancel, the end of the
// body): nothing is left to ask for, and the whole file's digest checks
// them. mu held.
func (ms *mirrorSet) onDisk(p *piece) bool {
	if p.at() < p.end {
		return false
	}
	ms.done++
	ms.cond.Broadcast()
	return true
}

// run records that s fetches p from now on.
func (ms *mirrorSet) run(p *piece, s *source, cancel context.CancelCauseFunc) *holder {
	h := &holder{src: s, cancel: cancel, released: make(chan struct{}), from: p.at(), started: time.Now()}
	ms.mu.Lock()
	ms.running[p] = h
	ms.mu.Unlock()
	return h
}

// release ends h's work on p: done when ok, else back to the front of the
// queue unless a thief has it.
func (ms *mirrorSet) release(p *piece, h *holder, ok bool) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	delete(ms.running, p)
	s := h.src
	if n := p.at() - h.from; n > 0 {
		s.moved += n
		s.busy += time.Since(h.started)
		if !s.origin {
			s.written.add(h.from, p.at())
		}
	}
	if (ok || p.at() > h.from) && s.state == MirrorUnused {
		s.state = MirrorUsed
	}
	h.ok = ok
	switch {
	case ok:
		ms.done++
		s.pieces++
	case !h.stolen:
		ms.pending = append([]*piece{p}, ms.pending...)
	}
	close(h.released)
	ms.cond.Broadcast()
}

// drop marks mirror s gone in state with reason, and stops its other
// pieces in flight (they go back to the queue). mu not held.
func (ms *mirrorSet) drop(s *source, state, reason string) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if s.gone {
		return
	}
	if state != MirrorCorrupt {
		state = MirrorDropped
		if s.pieces == 0 && s.written.size() == 0 {
			state = MirrorSkipped // it never delivered: not used at all
		}
	}
	s.gone, s.state, s.reason = true, state, reason
	for _, h := range ms.running {
		if h.src == s {
			h.cancel(errDropped)
		}
	}
	ms.cond.Broadcast()
}

// forget removes [a, b) from what the mirrors wrote: it is fetched again.
func (ms *mirrorSet) forget(a, b int64) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, s := range ms.sources[1:] {
		s.written.cut(a, b)
	}
}

// transferMirrors is transfer with mirrors: the first response feeds piece
// 0 on the origin's first worker; every source's workers take the rest.
func (d *download) transferMirrors(ctx context.Context, first *reply, mode bodyMode) error {
	if err := d.req.Limits.checkLength(d.total); err != nil {
		first.close()
		return err
	}
	d.prog.Start(d.total, d.before.size())
	ms := d.mir
	ms.mu.Lock()
	ms.total, ms.done = len(d.pieces), 0
	ms.pending = append([]*piece(nil), d.pieces[1:]...)
	ms.mu.Unlock()
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wake := func() { ms.mu.Lock(); ms.cond.Broadcast(); ms.mu.Unlock() }
	defer context.AfterFunc(gctx, wake)()
	go func() { // stealing is decided again as time passes
		t := time.NewTicker(rescheduleAt)
		defer t.Stop()
		for {
			select {
			case <-gctx.Done():
				return
			case <-t.C:
				wake()
			}
		}
	}()
	failed := make(chan error, 1)
	fail := func(err error) {
		select {
		case failed <- err:
			cancel(err)
		default:
		}
	}
	per := connsPerSource(d.parallel, len(ms.sources))
	done := make(chan struct{})
	n := 0
	for i, s := range ms.sources {
		for c := range per {
			p0, r, m := (*piece)(nil), (*reply)(nil), modeRange
			if i == 0 && c == 0 {
				p0, r, m = d.pieces[0], first, mode
			}
			n++
			go func() { d.sourceWorker(gctx, s, p0, r, m, fail); done <- struct{}{} }()
		}
	}
	for range n {
		<-done
	}
	switch {
	case ctx.Err() != nil:
		return context.Canceled
	case len(failed) > 0:
		return <-failed
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.done != ms.total {
		return fmt.Errorf("%d of %d pieces fetched: no source left for the rest", ms.done, ms.total)
	}
	return nil
}

// sourceWorker fetches pieces from s until none is left for it. A
// failure of the origin fails the download; a mirror's drops the mirror
// and puts its piece back.
func (d *download) sourceWorker(ctx context.Context, s *source, p *piece, r *reply, mode bodyMode, fail func(error)) {
	ms := d.mir
	buf := make([]byte, copyBufSize)
	for {
		if p == nil {
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
		// A piece taken away (stolen, or its mirror dropped) is not this
		// worker's failure, unless its bytes were wrong.
		cause := context.Cause(pctx)
		var pm *pieceMismatch
		taken := err != nil && !errors.As(err, &pm) && (cause == errStolen || cause == errDropped) && ctx.Err() == nil
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
			// connection moves to the fastest source left.
			s = ms.successor()
		}
		p, r, mode = nil, nil, modeRange
	}
}

// successor is the source a connection of a dropped mirror moves to: the
// fastest one still in use, the origin while none is measured faster.
func (ms *mirrorSet) successor() *source {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	best := ms.sources[0]
	for _, s := range ms.sources[1:] {
		if !s.gone && s.rate() > best.rate() {
			best = s
		}
	}
	return best
}

// mirrorPiece fetches piece p's missing bytes from mirror s, once.
func (d *download) mirrorPiece(ctx context.Context, s *source, p *piece, buf []byte) error {
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
// again from its start; other failures keep p's bytes so far. A non-nil
// return fails the download (p could not be rewound).
func (d *download) mirrorFailed(s *source, p *piece, err error) error {
	var pm *pieceMismatch
	var skip *mirrorSkip
	switch {
	case errors.As(err, &pm):
		d.mir.drop(s, MirrorCorrupt, fmt.Sprintf("served wrong bytes: %s %s %s mismatch", pm.where(), pm.check.Field, pm.check.Algorithm))
		d.warn(fmt.Sprintf("mirror %s served wrong bytes (%s failed its Content-Digest %s): dropped, its pieces fetched elsewhere", redacted(s.url), pm.where(), pm.check.Algorithm))
		if !d.refetch(p, pm) {
			return pm
		}
		d.mir.forget(p.start, p.end)
	case errors.As(err, &skip):
		d.mir.drop(s, MirrorSkipped, skip.reason)
		d.warn(fmt.Sprintf("mirror %s not used: %s", redacted(s.url), skip.reason))
	default:
		d.mir.drop(s, MirrorDropped, err.Error())
		d.warn(fmt.Sprintf("mirror %s failed: %v; its pieces fetched elsewhere", redacted(s.url), err))
	}
	return nil
}
