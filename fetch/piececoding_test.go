package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestPieceOtherCodingSameETag: a 206 whose Content-Encoding is not the
// first 200's, under the same strong ETag, is of another representation
// (RFC 9110 §8.4: the coding is the representation's). Without any digest
// nothing else tells, and the bytes of two representations were spliced
// and released as "unverified" with exit 0. It is a protocol error: the
// output is left alone.
func TestPieceOtherCodingSameETag(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	other := genData(pieceTestSize, 2)
	o.tamper = func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
		h.Del("Repr-Digest")
		h.Del("Content-Digest")
		if s == http.StatusPartialContent {
			h.Set("Content-Encoding", "gzip")
			var first, last, total int64
			if _, err := fmt.Sscanf(h.Get("Content-Range"), "bytes %d-%d/%d", &first, &last, &total); err == nil {
				b = other[first : last+1]
			}
		}
		return s, b
	}
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("precious"), 0o644)
	res, err := o.get(t, context.Background(), path, pieceOpts, 0)
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("err = %v (outcome %s), want a protocol error", err, res.Outcome())
	}
	assertFileBytes(t, path, []byte("precious"))
	assertAbsent(t, path+PartSuffix, path+SidecarSuffix)
}
