package fetch

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// More complete pieces beyond the hashed prefix than a sidecar records
// (maxSidecarPieces): the bytes of those not recorded lose the
// Content-Digest that verified them, so the sidecar must not list them as
// on disk, and -C fetches them again. Before, they were dropped from the
// pieces silently and kept unchecked: a part damaged there was released
// (here the origin sends no digest of the whole, only the pieces').
func TestSidecarPiecesBeyondLimitFetchedAgain(t *testing.T) {
	defer func(n int) { maxSidecarPieces = n }(maxSidecarPieces)
	maxSidecarPieces = 2
	o := newTestOrigin(t, pieceTestSize)
	o.set(func() {
		o.stall = true // piece 0 stalls: pieces 1 to 3 lie beyond the hashed prefix
		o.tamper = func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
			h.Del("Repr-Digest")
			if s == http.StatusOK {
				h.Del("Content-Digest")
			}
			return s, b
		}
	})
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 3, firstPieces)
	b, _ := os.ReadFile(path + SidecarSuffix)
	var sc sidecar
	if err := json.Unmarshal(b, &sc); err != nil || len(sc.Pieces) != maxSidecarPieces {
		t.Fatalf("sidecar %s: %v; want %d pieces recorded", b, err, maxSidecarPieces)
	}
	// Every byte the sidecar lists on disk beyond the hashed prefix is in a
	// recorded piece; damage the piece that was not recorded.
	recorded := func(at int64) bool {
		for _, p := range sc.Pieces {
			if p.Start <= at && at < p.End {
				return true
			}
		}
		return false
	}
	for _, s := range sc.done() {
		for x := max(s.start, sc.Hashed); x < s.end; x++ {
			if !recorded(x) {
				t.Fatalf("byte %d listed on disk beyond the hashed prefix %d, in no recorded piece (sidecar %s)", x, sc.Hashed, b)
			}
		}
	}
	for _, at := range []int64{262144, 524288, 786432} {
		if !recorded(at) {
			f, _ := os.OpenFile(path+PartSuffix, os.O_RDWR, 0)
			f.WriteAt([]byte("garbage"), at+10)
			f.Close()
		}
	}
	res := continueRun(t, o, path)
	if strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "in full") {
		t.Errorf("warnings %q: want only the piece not recorded fetched again", res.Verdict.Warnings)
	}
}

// A sidecar lists at most maxSidecarSpans spans, which it reads back: one
// that listed more was written all the same and refused by the next -C
// ("too many spans"), which then fetched the whole file again. The spans
// beyond the bound are no longer listed (their bytes fetched again), and
// what is written is read back.
func TestSidecarSpansBeyondLimitReadBack(t *testing.T) {
	defer func(n int) { maxSidecarSpans = n }(maxSidecarSpans)
	maxSidecarSpans = 2
	o := newTestOrigin(t, pieceTestSize)
	o.set(func() { o.stall = true }) // piece 0 stalls: pieces 1 and 3 leave holes
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 2, func(rng string) bool {
		return strings.HasPrefix(rng, "bytes=262144-") || strings.HasPrefix(rng, "bytes=786432-")
	})
	st, _ := os.Stat(path + PartSuffix)
	sc, why := loadSidecar(path+SidecarSuffix, o.srv.URL+"/f", "", st.Size())
	if sc == nil {
		t.Fatalf("the sidecar written is not read back: %s", why)
	}
	for _, p := range sc.Pieces {
		if sc.done().reach(p.Start) < p.End {
			t.Errorf("piece %d-%d recorded, its bytes not listed", p.Start, p.End)
		}
	}
	res := continueRun(t, o, path)
	if w := strings.Join(res.Verdict.Warnings, "\n"); strings.Contains(w, "started over") || strings.Contains(w, "in full") {
		t.Errorf("warnings %q: want the part resumed", res.Verdict.Warnings)
	}
}
