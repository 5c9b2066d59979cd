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

// bars is an mpb view of fetch.Progress: one bar per piece being fetched
// (removed when it completes) and a total with speed and ETA.
type bars struct {
	p *mpb.Progress

	mu    sync.Mutex
	total *mpb.Bar
	size  int64 // of the total, -1 unknown
	open  map[*mpb.Bar]bool
}

func newBars(w io.Writer) *bars {
	return &bars{
		// The caller knows w is a terminal (IOStreams.StderrTTY), even
		// when mpb cannot tell (w is not an *os.File).
		p:    mpb.New(mpb.WithOutput(w), mpb.WithAutoRefresh(), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond)),
		open: map[*mpb.Bar]bool{},
	}
}

// Start adds the total bar, or resets it for a restart.
func (b *bars) Start(total, done int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total == nil {
		b.total = b.p.AddBar(max(total, 0),
			mpb.PrependDecorators(decor.Name("total ", decor.WCSyncSpaceR), decor.CountersKibiByte("% .1f / % .1f")),
			mpb.AppendDecorators(decor.AverageSpeed(decor.SizeB1024(0), "% .1f"), decor.Name(" "),
				decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO), "done")))
		b.open[b.total] = true
	}
	b.size = total
	if total >= 0 {
		b.total.SetTotal(total, false)
	}
	b.total.SetCurrent(done)
}

// Piece adds a bar for one piece.
func (b *bars) Piece(id int, size, done int64) fetch.PieceProgress {
	b.mu.Lock()
	defer b.mu.Unlock()
	bar := b.p.AddBar(max(size, 0), mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(fmt.Sprintf("piece %d ", id), decor.WCSyncSpaceR), decor.CountersKibiByte("% .1f / % .1f")),
		mpb.AppendDecorators(decor.Percentage()))
	bar.SetCurrent(done)
	b.open[bar] = true
	return &pieceBar{b: b, bar: bar}
}

// Restart empties the total bar.
func (b *bars) Restart() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total != nil {
		b.total.SetCurrent(0)
	}
}

// Finish completes the total bar (or leaves it where it stopped) and waits
// for the last render, so the verdict line comes after the bars.
func (b *bars) Finish() {
	b.mu.Lock()
	for bar := range b.open {
		switch {
		case bar != b.total:
			bar.Abort(true)
		case b.size >= 0 && bar.Current() >= b.size:
			bar.SetTotal(-1, true)
		default:
			bar.Abort(false)
		}
	}
	b.open = map[*mpb.Bar]bool{}
	b.mu.Unlock()
	b.p.Wait()
}

func (b *bars) done(bar *mpb.Bar) {
	b.mu.Lock()
	delete(b.open, bar)
	b.mu.Unlock()
}

// pieceBar counts one piece's bytes, and the total's.
type pieceBar struct {
	b   *bars
	bar *mpb.Bar
}

func (p *pieceBar) Add(n int) {
	p.bar.IncrBy(n)
	p.b.mu.Lock()
	t := p.b.total
	p.b.mu.Unlock()
	if t != nil {
		t.IncrBy(n)
	}
}

func (p *pieceBar) Done(ok bool) {
	if ok {
		p.bar.SetTotal(-1, true)
	} else {
		p.bar.Abort(true)
	}
	p.b.done(p.bar)
}
