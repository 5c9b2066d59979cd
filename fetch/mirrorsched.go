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
