package delta

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/server"
)

// Rates of the estimate that decides whether a delta is made on the
// request path (see slow). The encode rate is then measured.
const (
	// DefaultEncodeRate is the bytes of base and target encoded per second
	// assumed before an encode was measured (a loaded core at level 6).
	DefaultEncodeRate = 64 << 20
	// DefaultSendRate is the bytes per second a client is assumed to
	// receive: a fast link, so that a delta is made on the path only when
	// that is quick.
	DefaultSendRate = 100 << 20
	// onPathFloor is an encode short enough to make on the request path
	// whatever the estimate of sending says.
	onPathFloor = 100 * time.Millisecond
)

// SetRates sets the encode rate (bytes of base and target per second) and
// the send rate (bytes per second) of the estimate, stops measuring the
// encode rate and drops onPathFloor; tests use it, and an operator who
// knows the links.
func (h *Handler) SetRates(encode, send int64) {
	h.rateMu.Lock()
	defer h.rateMu.Unlock()
	h.encodeRate, h.sendRate, h.pinned = max(1, encode), max(1, send), true
}

// slow reports whether making the delta from base to cur is estimated to
// take longer than sending the rival bytes the server sends otherwise
// (cur whole, or its encoded variant), and longer than onPathFloor.
func (h *Handler) slow(cur *server.Representation, base version, rival int64) bool {
	h.rateMu.Lock()
	defer h.rateMu.Unlock()
	encode := float64(base.Size+cur.Size) / float64(h.encodeRate)
	send := float64(rival) / float64(h.sendRate)
	return encode > max(send, onPathFloor.Seconds()) || h.pinned && encode > send
}

// measured records an encode of n bytes of base and target that took d.
func (h *Handler) measured(n int64, d time.Duration) {
	h.rateMu.Lock()
	defer h.rateMu.Unlock()
	if h.pinned || d <= 0 || n < 1<<20 {
		return
	}
	rate := int64(float64(n) / d.Seconds())
	h.encodeRate = max(1, (h.encodeRate+rate)/2)
}

// stored reports whether the delta for the first coding is already made.
func (h *Handler) stored(cur *server.Representation, base version, codings []patch.Manipulation) bool {
	baseSum, ok1 := tagSum(base.ETag)
	curSum, ok2 := tagSum(cur.ETag)
	if !ok1 || !ok2 || len(codings) == 0 {
		return false
	}
	_, err := os.Stat(filepath.Join(h.dir, "deltas", deltaName(baseSum, curSum, []string{codings[0].Name})))
	return err == nil
}

// encodeLater makes the delta in the background for the next request,
// one at a time: while one is being made, others are not queued (a later
// request asks again). The current file is reopened, and used only if it
// is still the version cur is.
func (h *Handler) encodeLater(cur *server.Representation, base version, codings, aim []patch.Manipulation) {
	if !h.bgBusy.CompareAndSwap(false, true) {
		return
	}
	f, err := cur.Reopen()
	if err != nil {
		h.bgBusy.Store(false)
		return
	}
	bg := &server.Representation{Path: cur.Path, File: cur.File, ContentType: cur.ContentType, Size: cur.Size, ETag: cur.ETag, Content: f}
	started := h.goBackground(func(ctx context.Context) {
		defer h.bgBusy.Store(false)
		defer f.Close()
		d, err := h.bestDelta(ctx, bg, base, codings, aim)
		if err != nil {
			if ctx.Err() == nil {
				h.log.Warn("delta in background", "file", cur.File, "base", base.ETag, "err", err)
			}
			return
		}
		if d.size > codeOnPathMax {
			h.codeAll(ctx, d, deltaEncodings) // the next request takes the smallest its client accepts
		}
	})
	if !started {
		f.Close()
		h.bgBusy.Store(false)
	}
}

// goBackground runs job on its own goroutine with the background context,
// unless the Handler is closed; it reports whether it started it. The
// check and the count of jobs (h.bg) are one step under h.bgMu, so Close
// never waits while a job is being added.
func (h *Handler) goBackground(job func(ctx context.Context)) bool {
	h.bgMu.Lock()
	defer h.bgMu.Unlock()
	if h.bgCtx.Err() != nil {
		return false
	}
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		job(context.WithValue(h.bgCtx, backgroundKey{}, true))
	}()
	return true
}

// Close stops the deltas and codings being made in the background (their
// temporary files are removed, nothing is stored), starts no more, and
// waits for them and for the recordings in progress. Requests still being
// served make their deltas on their own path as before.
func (h *Handler) Close() error {
	h.bgMu.Lock()
	h.stopBg()
	h.bgMu.Unlock()
	h.Wait()
	return nil
}

// backgroundKey marks the context of an encode made in the background.
type backgroundKey struct{}

func inBackground(ctx context.Context) bool {
	b, _ := ctx.Value(backgroundKey{}).(bool)
	return b
}
