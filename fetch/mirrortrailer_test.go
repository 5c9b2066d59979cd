package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A mirror whose 206 (its first) carries, in its trailer, a Repr-Digest another than
// the origin's serves another version, as one whose header does: the
// mirror is skipped and its piece fetched again from its start (the
// origin's), as a piece failing its Content-Digest is (mirrorFailed).
// Its bytes, written before the trailer came, were kept as on disk, the
// mirror reported as failing with a protocol error: the whole then failed
// its Repr-Digest and only narrow, fetching all the mirror's spans again
// from the origin, repaired it.
func TestMirrorTrailerReprDigestDropped(t *testing.T) {
	data, other := genData(pieceTestSize, 1), genData(pieceTestSize, 2)
	asked := make(chan struct{})
	var once sync.Once
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a, b int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b); err != nil {
			http.Error(w, "ranges only", http.StatusBadRequest)
			return
		}
		first := false
		once.Do(func() { first = true; close(asked) })
		body := data // its other pieces (in flight meanwhile) are right
		if first {
			body = other
			w.Header().Set("Trailer", verify.ReprDigest)
		}
		w.Header().Set("ETag", `"m2"`)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(body)))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(body[a : b+1])
		if first {
			w.Header().Set(verify.ReprDigest, sha256Field(other))
		}
	}))
	defer mirror.Close()
	o := newTestOrigin(t, pieceTestSize)
	o.before = func(r *http.Request) bool {
		if r.Header.Get("Range") != "" {
			select { // the mirror gets a piece, however the workers run
			case <-asked:
			case <-r.Context().Done():
				return false
			}
		}
		return true
	}
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	opts := pieceOpts
	opts.Mirrors = []string{mirror.URL + "/f"}
	res, err := c.Download(context.Background(), mirrorRequest(o.srv.URL), path, opts)
	if err != nil {
		t.Fatalf("Download: %v (warnings %q); want the mirror dropped and its piece fetched from the origin", err, res.Verdict.Warnings)
	}
	assertFileBytes(t, path, data)
	rep := mirrorReport(t, res, mirror.URL+"/f")
	// Skipped or dropped (drop decides: it may have delivered right pieces
	// meanwhile, which are kept).
	if res.Outcome() != verify.Verified || rep.State == MirrorUsed || rep.State == MirrorCorrupt || !strings.Contains(rep.Reason, "another version") {
		t.Errorf("outcome %s, mirror %+v; want verified, the mirror no longer used as another version", res.Outcome(), rep)
	}
	// Its piece is fetched again at once: the whole never fails, and the
	// mirror's bytes are not found wrong afterwards by fetching them again.
	if hasWarning(res, "served wrong bytes") {
		t.Errorf("warnings %q: the mirror's bytes of another version were kept until the whole failed", res.Verdict.Warnings)
	}
}
