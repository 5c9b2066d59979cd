package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A part kept after an interrupt whose sidecar could not be saved has no
// record of which of its bytes came: the next -C resumes it from its end,
// as a part with no sidecar. So it must hold no gap: it is cut back to the
// bytes that came without one (here piece 1 never came: the first piece
// is kept), never left with a hole of zeros for a resume to take
// as the origin's bytes.
func TestSidecarUnsavedPartKeepsNoGap(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	// A directory that is not empty at the sidecar's name: no sidecar can
	// be written there, nor removed.
	if err := os.MkdirAll(filepath.Join(path+SidecarSuffix, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o.set(func() {
		o.before = func(r *http.Request) bool {
			// Piece 1 (bytes=262144-) is held back: pieces 0, 2 and 3 land.
			if rng := r.Header.Get("Range"); rng != "" && !strings.HasPrefix(rng, "bytes=524288-") && !strings.HasPrefix(rng, "bytes=786432-") {
				<-r.Context().Done()
				return false
			}
			return true
		}
	})
	opts := pieceOpts
	opts.Continue = true
	opts.Progress = &cancelAfter{n: 3, cancel: cancel}
	_, err := o.get(t, ctx, path, opts, 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	data, _ := o.current()
	part, err := os.ReadFile(path + PartSuffix)
	if err == nil && !bytes.Equal(part, data[:len(part)]) {
		t.Errorf("the part kept (%d bytes) is not a prefix of the file: a gap left for -C to resume over", len(part))
	}
}
