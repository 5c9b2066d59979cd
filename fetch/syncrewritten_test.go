package fetch

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestSidecarSyncsRewrittenBytes: a sidecar is saved only after the bytes
// it vouches for were synced (syncVouched); the sync is skipped when it
// lists the spans the last synced one did. Bytes written again inside
// those spans (a piece rewound and fetched again: a corrupt one, a
// mirror's of another version; narrow's repair) were not synced before the
// next sidecar, which listed the same spans: after a power loss it vouched
// for the rewritten bytes, which may read back as the old ones or zeros.
func TestSidecarSyncsRewrittenBytes(t *testing.T) {
	const n = 100
	dir := t.TempDir()
	part := filepath.Join(dir, "f"+PartSuffix)
	f, err := os.Create(part)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(genData(n, 1)); err != nil {
		t.Fatal(err)
	}
	syncs := 0
	old := syncPart
	syncPart = func(f *os.File) error { syncs++; return old(f) }
	defer func() { syncPart = old }()
	d := &download{req: &Request{URL: "http://x.test/f"}, f: f, part: part, side: filepath.Join(dir, "f"+SidecarSuffix),
		total: n, etag: `"e"`, status: http.StatusOK, header: http.Header{}}
	d.startHash(nil, 0, nil)
	p0, p1 := &piece{id: 0, start: 0, end: 50}, &piece{id: 1, start: 50, end: n}
	p0.next.Store(50)
	p1.next.Store(50)
	d.pieces = []*piece{p0, p1}
	save := func(want int, what string) {
		t.Helper()
		if err := d.saveSidecar(); err != nil {
			t.Fatal(err)
		}
		if syncs != want {
			t.Errorf("%s: %d syncs, want %d", what, syncs, want)
		}
	}
	save(1, "first save")
	save(1, "the same spans, nothing written")
	if err := d.rewind(p1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(genData(50, 2), 50); err != nil {
		t.Fatal(err)
	}
	p1.next.Store(50) // fetched again to its end: the same spans
	save(2, "piece 1 rewound and written again")
}
