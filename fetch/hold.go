package fetch

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hdig/hdig/cache"
)

// Hold fetches req (a GET without body, Ranges or Compressed, as Download
// takes) into held, the sink of a body held back for stdout, and commits
// it (releases it to held.Out) only once verified. The body is spooled
// anyway, so it is fetched exactly as Download fetches -o FILE: a first
// plain GET, the rest in concurrent Range pieces when the origin allows
// them and the size calls for them, each piece checked and the whole
// verified, into held's spill file instead of FILE.hdig-part. There is no
// part file to keep, no sidecar and no fsync: a failed or interrupted
// Hold leaves nothing and releases nothing.
//
// When the request is conditional, or the cache offers a base version or
// a dictionary, it is Get into held: one response, a 226 delta or a
// dictionary-compressed body beats any number of pieces. So it is when no
// spool file can be made: held keeps a small body in memory.
func (c *Client) Hold(ctx context.Context, req *Request, held *HeldSink, o DownloadOptions) (*Result, error) {
	ctx = withCredentialsFor(ctx, req.URL)
	if o.Progress == nil {
		o.Progress = NoProgress{}
	}
	if o.Parallel < 0 || o.Parallel > MaxParallel || o.Continue {
		o.Progress.Finish()
		held.Abort()
		if o.Continue {
			return nil, errors.New("continue: a held body has no part file to resume")
		}
		return nil, fmt.Errorf("parallel %d: want 0 (automatic) to %d", o.Parallel, MaxParallel)
	}
	dl := req.Delta
	if dl != nil {
		spoolIn(held, dl.Cache)
	}
	if req.Conditional() || dl != nil && dl.Cache != nil && c.offers(dl, req.URL) {
		defer o.Progress.Finish()
		return c.Get(ctx, req, held)
	}
	f, err := held.spool()
	if err != nil {
		// No spool file (TMPDIR unwritable): a small body still fits in
		// memory, as it did before; a large one fails as it would have.
		defer o.Progress.Finish()
		return c.Get(ctx, req, held)
	}
	d := &download{c: c, req: req, path: "stdout", part: "the spool of stdout", f: f, spool: true, respool: held.respool, o: o, prog: o.Progress}
	d.hooks()
	res, err := d.fresh(ctx, true)
	d.prog.Finish()
	if err != nil {
		d.closeHash()
		held.Abort()
		return res, err
	}
	held.filled(res.Bytes)
	if dl != nil && dl.Cache != nil && res.Strategy != StrategyNotModified {
		c.storeHeld(dl.Cache, res, held)
		storeDictHeld(dl.Cache, res, held)
	}
	if err := held.Commit(); err != nil {
		return res, &writeError{err: err}
	}
	return res, nil
}

// spool drops what was held and returns the spill file, created empty, for
// a Download to write at any offset (filled then says how much is held).
func (s *HeldSink) spool() (*os.File, error) {
	s.Reset()
	f, err := s.newSpill()
	if err != nil {
		return nil, fmt.Errorf("spool the held body: %w", err)
	}
	s.file = f
	return f, nil
}

// filled says the spill file holds n bytes.
func (s *HeldSink) filled(n int64) { s.size = n }

// spoolIn has held spool a body the cache store could keep (a known
// length within its MaxBytes) into the store: once verified it becomes a
// cached version without a second copy. A larger body, or one of unknown
// length, is spooled where it was, and never touches the cache's disk.
func spoolIn(held *HeldSink, store *cache.Cache) {
	if held == nil || store == nil || held.Spool != nil {
		return
	}
	held.Spool = func(size int64) (*os.File, error) {
		if size < 0 || store.MaxBytes > 0 && size > store.MaxBytes {
			return nil, cache.ErrTooLarge
		}
		return store.Spool()
	}
}
