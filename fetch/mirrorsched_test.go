package fetch

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestWorthStealing(t *testing.T) {
	for _, c := range []struct {
		left          int64
		holder, thief float64
		want          bool
	}{
		{1 << 20, 1e6, 2e6, true},
		{1 << 20, 1e6, 1.9e6, false}, // not twice as fast
		{minSteal - 1, 1e6, 1e9, false},
		{1 << 20, 0, 1e9, false}, // the holder is not measured yet
		{1 << 20, 1e6, 0, false}, // nor the thief
	} {
		if got := worthStealing(c.left, c.holder, c.thief); got != c.want {
			t.Errorf("worthStealing(%d, %g, %g) = %v, want %v", c.left, c.holder, c.thief, got, c.want)
		}
	}
}

// TestTakeSteals: with nothing pending, a fast source takes over the piece
// of a slow one (measured for longer than measureAfter) from where it
// stopped, after the slow request was cancelled and released; a source as
// slow as the holder waits instead. Time is given, not measured.
func TestTakeSteals(t *testing.T) {
	ms := &mirrorSet{running: map[*piece]*holder{}, total: 2}
	ms.cond = sync.NewCond(&ms.mu)
	slow := &source{url: "slow", state: MirrorUsed}
	fast := &source{url: "fast", state: MirrorUsed, moved: 8 << 20, busy: time.Second}
	p := &piece{id: 1, start: 0, end: 4 << 20}
	p.next.Store(100 << 10)
	ctx, cancel := context.WithCancelCause(context.Background())
	h := &holder{src: slow, cancel: cancel, released: make(chan struct{}), started: time.Now().Add(-10 * time.Second)}
	ms.running[p] = h
	if q, _ := ms.victim(&source{url: "same", moved: 5 << 10, busy: time.Second}, time.Now()); q != nil {
		t.Fatalf("a source as slow as the holder would steal piece %d", q.id)
	}
	go func() { // the slow worker: sees the cancel, releases
		<-ctx.Done()
		if context.Cause(ctx) != errStolen {
			t.Errorf("cause %v, want errStolen", context.Cause(ctx))
		}
		ms.release(p, h, false)
	}()
	got := ms.take(context.Background(), fast)
	if got != p {
		t.Fatalf("take = %v, want the slow piece", got)
	}
	if got.at() != 100<<10 {
		t.Errorf("stolen piece resumes at %d, want %d", got.at(), 100<<10)
	}
	if len(ms.pending) != 0 {
		t.Errorf("stolen piece also queued: %d pending", len(ms.pending))
	}
	// The bytes the slow mirror wrote stay its own (for narrow).
	if slow.written.size() != 100<<10 {
		t.Errorf("slow mirror's bytes kept: %d, want %d", slow.written.size(), 100<<10)
	}
}

// TestTakeAfterTheEnd: a piece whose holder finishes as it is stolen, and
// a queued piece whose bytes are all on disk (its request failed after the
// last byte), are done: take asks for nothing more and returns nil.
func TestTakeAfterTheEnd(t *testing.T) {
	for _, finished := range []bool{true, false} {
		ms := &mirrorSet{running: map[*piece]*holder{}, total: 1}
		ms.cond = sync.NewCond(&ms.mu)
		slow := &source{url: "slow"}
		fast := &source{url: "fast", moved: 8 << 20, busy: time.Second}
		p := &piece{id: 1, start: 0, end: 1 << 20}
		if !finished {
			ms.pending = []*piece{p}
			p.next.Store(1 << 20)
			if got := ms.take(context.Background(), fast); got != nil || ms.done != 1 {
				t.Errorf("a queued piece on disk: take = %v, done %d; want nil, 1", got, ms.done)
			}
			continue
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		h := &holder{src: slow, cancel: cancel, released: make(chan struct{}), started: time.Now().Add(-10 * time.Second)}
		ms.running[p] = h
		go func() {
			<-ctx.Done()
			p.next.Store(1 << 20) // the last bytes landed as it was cancelled
			ms.release(p, h, true)
		}()
		if got := ms.take(context.Background(), fast); got != nil || ms.done != 1 || slow.pieces != 1 {
			t.Errorf("a stolen piece that finished: take = %v, done %d, holder's pieces %d; want nil, 1, 1", got, ms.done, slow.pieces)
		}
	}
}

// TestSuccessor: a connection stays with its source while it is in use;
// once the source is dropped it moves to the fastest source left, the
// origin while no mirror is measured faster.
func TestSuccessor(t *testing.T) {
	origin := &source{origin: true, moved: 4 << 20, busy: time.Second}
	slow := &source{url: "slow", moved: 1 << 20, busy: time.Second}
	fast := &source{url: "fast", moved: 16 << 20, busy: time.Second}
	liar := &source{url: "liar", moved: 32 << 20, busy: time.Second}
	ms := &mirrorSet{sources: []*source{origin, slow, fast, liar}}
	if got := ms.successor(liar); got != liar {
		t.Errorf("in use: moved to %s", got.url)
	}
	liar.gone = true
	if got := ms.successor(liar); got != fast {
		t.Errorf("dropped: moved to %q, want fast", got.url)
	}
	fast.gone = true
	if got := ms.successor(liar); got != origin {
		t.Errorf("dropped, only slower mirrors left: moved to %q, want the origin", got.url)
	}
}
