package fetch

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// -C: another version seen at a later piece of the resume (here the
// origin changed its file and kept its ETag after the first answer, so
// a later 206 gives another length) must end as it does at the first
// answer (otherLength): the whole is fetched again and verified. Before,
// only the first answer was held to that rule; a later piece's length
// ended as a protocol error (exit 5) and the part was deleted.
func TestResumeOtherLengthAtLaterPiece(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	var ranges atomic.Int32
	o.set(func() {
		o.before = func(r *http.Request) bool {
			if r.Header.Get("Range") != "" && ranges.Add(1) == 2 {
				o.setVersion(pieceTestSize+10, 2)
				o.set(func() { o.etag = `"v1"` }) // the ETag kept across the change
			}
			return true
		}
	})
	opts := pieceOpts
	opts.Continue = true
	res, err := o.get(t, context.Background(), path, opts, 0)
	if err != nil {
		t.Fatalf("resume: %v (warnings %q); want the file fetched again in full", err, res.Verdict.Warnings)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if res.Outcome() != verify.Verified || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "in full") {
		t.Errorf("outcome %s, warnings %q; want verified after a fetch in full", res.Outcome(), res.Verdict.Warnings)
	}
}

// A 416 to a later piece of a resume says the representation no longer
// holds the range: another version, as a 416 to the first answer is
// (resumeFailed). Before, the first answer's 416 meant a fetch in full
// and a later piece's ended the run as an HTTP error.
func TestResumeRangeNotSatisfiableAtLaterPiece(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	var ranges atomic.Int32
	o.set(func() {
		o.before = func(r *http.Request) bool {
			if r.Header.Get("Range") != "" && ranges.Add(1) == 2 {
				o.setVersion(1000, 2)
				o.set(func() { o.etag = `"v1"` }) // the ETag kept across the change
			}
			return true
		}
	})
	opts := pieceOpts
	opts.Continue = true
	res, err := o.get(t, context.Background(), path, opts, 0)
	if err != nil {
		t.Fatalf("resume: %v (warnings %q); want the file fetched again in full", err, res.Verdict.Warnings)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
}
