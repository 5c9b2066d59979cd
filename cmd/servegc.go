package cmd

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// tuneGC sets the collector for a server, unless GOGC or GOMEMLIMIT say
// otherwise: its live heap is small (the small-file snapshots and variants
// are bounded) while every request allocates, so collecting at 4× the
// live heap instead of 2× saves about a tenth of a small request's CPU
// time, and while the live heap is small the heap may grow by at least
// gcHeadroom between collections (gcPercentFor, looked at every
// gcTuneEvery); a soft limit of 1 GiB keeps the heap from growing with it.
func tuneGC(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
	if os.Getenv("GOGC") != "" {
		return
	}
	set := gcPercentFor(0) // the live heap is small at start
	debug.SetGCPercent(set)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(gcTuneEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			if p := gcPercentFor(sample[0].Value.Uint64()); p != set {
				debug.SetGCPercent(p)
				set = p
			}
		}
	}()
}

const (
	// gcPercent is the server's GOGC: collect at 5× the live heap.
	gcPercent = 400
	// gcHeadroom is the least the heap may grow between collections:
	// with 1 MiB live, GOGC 400 alone collects every 4 MiB allocated,
	// many times a second under small requests (about 4 KiB each).
	gcHeadroom = 64 << 20
	// gcTuneEvery is how often the live heap is looked at.
	gcTuneEvery = time.Second
)

// gcHeapMinimum is the Go runtime's least heap goal at GOGC 100: the
// goal is GOGC/100 times the larger of it and the live heap.
const gcHeapMinimum = 4 << 20

// gcPercentFor is the GOGC for a live heap of live bytes: gcPercent, or
// more while the heap is so small that gcPercent would give less than
// gcHeadroom between collections (at most 2×gcHeadroom then). It changes
// in steps of a power of two, so that a live heap that moves a little
// does not change it.
func gcPercentFor(live uint64) int {
	base := max(live, gcHeapMinimum)
	p := gcPercent
	for base*uint64(p)/100 < gcHeadroom {
		p *= 2
	}
	return p
}
