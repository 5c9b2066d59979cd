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

// -C: another version seen at a later piece of the resume (the origin
// changed its file and kept its ETag after the first answer) must end as
// it does at the first answer: the whole is fetched again and verified.
// A later 206 of another length ended as a protocol error (exit 5) and the
// part was deleted; a 416 (the file now shorter than the range) ended the
// run as an HTTP error, while at the first answer both meant a fetch in
// full. Another Repr-Digest under the same ETag and length (an ETag made
// of the size and an mtime put back) ended as a protocol error too, and so
// did another Content-Encoding (another representation), which at the
// first answer also meant a fetch in full.
func TestResumeOtherVersionAtLaterPiece(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		at   int32 // the range request the change comes before
		gzip bool  // the change: 206s labelled gzip from then on, no new version
	}{
		{"another length", pieceTestSize + 10, 2, false},
		{"416", 1000, 2, false},
		{"another Repr-Digest", pieceTestSize, 2, false},
		{"another Repr-Digest at the first answer", pieceTestSize, 1, false},
		{"another Content-Encoding", 0, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOrigin(t, pieceTestSize)
			var gz atomic.Bool
			o.tamper = func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
				if s == http.StatusPartialContent && gz.Load() {
					h.Set("Content-Encoding", "gzip")
				}
				return s, b
			}
			path := filepath.Join(t.TempDir(), "f")
			interrupt(t, o, path, 4, firstPieces)
			var ranges atomic.Int32
			o.set(func() {
				o.before = func(r *http.Request) bool {
					if r.Header.Get("Range") != "" && ranges.Add(1) == tc.at {
						if tc.gzip {
							gz.Store(true)
							return true
						}
						o.setVersion(tc.size, 2)
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
		})
	}
}
