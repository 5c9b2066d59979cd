package fetch

import (
	"fmt"
	"net/http"

	"github.com/hdig/hdig/verify"
)

// A piece's Content-Digest says which piece to fetch again (README): a
// piece whose bytes fail it is refetched whole, up to refetches times, and
// the origin that sent the bad bytes is named. Only if the refetched bytes
// fail too does the download fail (ErrMismatch, exit 1).

// pieceMismatch is a piece whose bytes did not match its Content-Digest.
type pieceMismatch struct {
	check  verify.Check
	id     int
	first  int64 // the piece's bytes first..last
	last   int64
	origin string // where the bytes came from (after redirects)
}

func (e *pieceMismatch) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrMismatch, e.where(), e.check)
}

func (e *pieceMismatch) Unwrap() error { return ErrMismatch }

func (e *pieceMismatch) where() string {
	return fmt.Sprintf("piece %d (bytes %d-%d) from %s", e.id, e.first, e.last, e.origin)
}

// newPieceMismatch describes check c, a mismatch of the piece bytes
// from..p.end-1 that resp carried.
func newPieceMismatch(resp *http.Response, p *piece, from int64, c verify.Check) *pieceMismatch {
	pm := &pieceMismatch{check: c, id: p.id, first: from, last: p.end - 1, origin: "the origin"}
	if resp.Request != nil && resp.Request.URL != nil {
		pm.origin = originOf(resp.Request.URL)
	}
	pm.check.Reason = pm.where()
	return pm
}

// refetches is how many times a corrupt piece is fetched again: --retry,
// and at least once (a retry count of 0 still lets a piece's digest do
// what it is for).
func (d *download) refetches() int { return max(d.req.Retry, 1) }

// refetch prepares piece p to be fetched again from its start after pm
// (rewind). It returns false when that is impossible; the download then
// fails with pm.
func (d *download) refetch(p *piece, pm *pieceMismatch) bool {
	if err := d.rewind(p); err != nil {
		d.warn(fmt.Sprintf("cannot hash again after the corrupt %s: %v", pm.where(), err))
		return false
	}
	d.warn(fmt.Sprintf("%s did not match its Content-Digest %s: fetched again", pm.where(), pm.check.Algorithm))
	return true
}

// rewind makes piece p to be fetched again from its start: its bytes no
// longer count as on disk, and the prefix hash, if it has taken any of
// them in, starts again from where it started (re-reading what is on
// disk). An error says that is impossible. Its bytes will be written
// again: unvouched, after its spans shrank (a sidecar saved between the
// two lists fewer).
func (d *download) rewind(p *piece) error {
	p.next.Store(0)
	err := d.ph.rewind(p.start, p.end)
	d.unvouch()
	return err
}

// unvouch says bytes were, or will be, written again inside spans a
// sidecar may have listed after a sync (d.vouched): the next sidecar's
// save syncs the part whatever spans it lists. syncVouched skips the sync
// only when the spans are those synced last, which says nothing of bytes
// rewritten inside them (a piece rewound and fetched again to its end,
// narrow's repair).
func (d *download) unvouch() {
	d.mu.Lock()
	d.vouched = nil
	d.mu.Unlock()
}

// failPiece records a piece's final mismatch in the verdict.
func (d *download) failPiece(pm *pieceMismatch, refetched int) error {
	d.mu.Lock()
	d.checks = append(d.checks, pm.check)
	d.mu.Unlock()
	if refetched == 0 {
		return pm
	}
	return fmt.Errorf("%w (corrupt again after %d refetch(es))", pm, refetched)
}
