package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progressFor returns the progress view of hdig get: bars on stderr when it
// is a terminal and -s is not given, nothing otherwise (a pipe, a log file
// and scripts see only the verdict).
func progressFor(ios *IOStreams, silent bool) fetch.Progress {
	if silent || !ios.StderrTTY {
		return fetch.NoProgress{}
	}
	return newBars(ios.ErrOut)
}

// bars is an mpb view of fetch.Progress: a total with its speed and a
// labelled ETA, and, when the download is in several pieces, one bar per
// piece being fetched (removed when it completes). A body under
// tinyBody shows nothing.
type bars struct {
	p *mpb.Progress

	mu     sync.Mutex
	total  *mpb.Bar
	size   int64 // of the total, -1 unknown
	base   int64 // bytes on disk at the start: not counted in the speed
	since  time.Time
	hidden bool // a tiny body: no bars at all
	open   map[*mpb.Bar]bool
}

// tinyBody is the size under which no bar is drawn: it would only flash.
const tinyBody = 1 << 20

func newBars(w io.Writer) *bars {
	return &bars{
		// The caller knows w is a terminal (IOStreams.StderrTTY), even
		// when mpb cannot tell (w is not an *os.File).
		p:    mpb.New(mpb.WithOutput(w), mpb.WithAutoRefresh(), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond)),
		open: map[*mpb.Bar]bool{},
	}
}

// Start adds the total bar, or resets it for a restart.
//
// No mpb method is called with b.mu held: mpb's render goroutine calls
// the decorators (rate, eta), which take b.mu, while a Bar method waits
// for that goroutine.
func (b *bars) Start(total, done int64) {
	b.mu.Lock()
	b.hidden = b.total == nil && total >= 0 && total-done < tinyBody
	if b.hidden {
		b.mu.Unlock()
		return
	}
	b.size, b.base, b.since = total, done, time.Now()
	t := b.total
	b.mu.Unlock()
	if t == nil {
		t = b.p.AddBar(max(total, 0),
			mpb.PrependDecorators(decor.Name("total ", decor.WCSyncSpaceR), decor.CountersKibiByte("% .1f / % .1f")),
			mpb.AppendDecorators(decor.Any(b.rate), decor.OnComplete(decor.Any(b.eta), "")))
		b.mu.Lock()
		b.total = t
		b.open[t] = true
		b.mu.Unlock()
	}
	if total >= 0 {
		t.SetTotal(total, false)
	}
	t.SetCurrent(done)
}

// rate is the speed of the bytes received now (a resumed part's bytes on
// disk do not count).
func (b *bars) rate(s decor.Statistics) string {
	b.mu.Lock()
	base, since := b.base, b.since
	b.mu.Unlock()
	bps, _ := speedAndETA(s.Current-base, time.Since(since), s.Total-s.Current)
	return fmt.Sprintf("%.1f/s", decor.SizeB1024(int64(bps)))
}

// eta is the labelled time left at that speed.
func (b *bars) eta(s decor.Statistics) string {
	b.mu.Lock()
	base, since, size := b.base, b.since, b.size
	b.mu.Unlock()
	if size < 0 {
		return ""
	}
	_, left := speedAndETA(s.Current-base, time.Since(since), s.Total-s.Current)
	if left < 0 {
		return " ETA --"
	}
	return " ETA " + left.Round(time.Second).String()
}

// speedAndETA is the speed of got bytes in elapsed, and the time left for
// the remaining bytes at it (-1: not known yet).
func speedAndETA(got int64, elapsed time.Duration, remaining int64) (float64, time.Duration) {
	if got <= 0 || elapsed <= 0 {
		return 0, -1
	}
	bps := float64(got) / elapsed.Seconds()
	return bps, time.Duration(float64(max(remaining, 0)) / bps * float64(time.Second))
}

// Piece adds a bar for one piece; the piece that is the whole body (one
// stream) has none: the total is its bar.
func (b *bars) Piece(id int, size, done int64) fetch.PieceProgress {
	b.mu.Lock()
	hidden, whole, t := b.hidden, size == b.size, b.total
	b.mu.Unlock()
	if hidden {
		return &pieceBar{b: b}
	}
	if whole {
		if t != nil {
			t.SetCurrent(done) // a piece fetched again starts over
		}
		return &pieceBar{b: b}
	}
	bar := b.p.AddBar(max(size, 0), mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(fmt.Sprintf("piece %d ", id), decor.WCSyncSpaceR), decor.CountersKibiByte("% .1f / % .1f")),
		mpb.AppendDecorators(decor.Percentage()))
	bar.SetCurrent(done)
	b.mu.Lock()
	b.open[bar] = true
	b.mu.Unlock()
	return &pieceBar{b: b, bar: bar}
}

// Restart empties the total bar.
func (b *bars) Restart() {
	b.mu.Lock()
	t := b.total
	b.mu.Unlock()
	if t != nil {
		t.SetCurrent(0)
	}
}

// Finish completes the total bar (or leaves it where it stopped) and waits
// for the last render, so the verdict line comes after the bars.
func (b *bars) Finish() {
	b.mu.Lock()
	open, total, size := b.open, b.total, b.size
	b.open = map[*mpb.Bar]bool{}
	b.mu.Unlock()
	for bar := range open {
		switch {
		case bar != total:
			bar.Abort(true)
		case size >= 0 && bar.Current() >= size:
			bar.SetTotal(-1, true)
		default:
			bar.Abort(false)
		}
	}
	b.p.Wait()
}

func (b *bars) done(bar *mpb.Bar) {
	b.mu.Lock()
	delete(b.open, bar)
	b.mu.Unlock()
}

// pieceBar counts one piece's bytes (bar nil: it has no bar of its own),
// and the total's.
type pieceBar struct {
	b   *bars
	bar *mpb.Bar
}

func (p *pieceBar) Add(n int) {
	if p.bar != nil {
		p.bar.IncrBy(n)
	}
	p.b.mu.Lock()
	t := p.b.total
	p.b.mu.Unlock()
	if t != nil {
		t.IncrBy(n)
	}
}

func (p *pieceBar) Done(ok bool) {
	if p.bar == nil {
		return
	}
	if ok {
		p.bar.SetTotal(-1, true)
	} else {
		p.bar.Abort(true)
	}
	p.b.done(p.bar)
}
