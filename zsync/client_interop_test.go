package zsync

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"os"
	"path/filepath"
	"testing"
)

// TestZsyncClientAcceptsOurs: Debian's zsync 0.6.2 rebuilds the new file
// from the old one with a control file we made, and asks for no more range
// bytes than our matcher finds missing (16 MiB, 64 scattered edits).
func TestZsyncClientAcceptsOurs(t *testing.T) {
	zs := tool(t, "zsync")
	const size = 16 << 20
	old := randomBytes(21, size)
	cur := bytes.Clone(old)
	for k := 0; k < 64; k++ {
		p := k*(size/64) + (k*7919)%(size/64-64)
		copy(cur[p:], []byte("an edit of a few bytes"))
	}
	ctl, err := Make(bytes.NewReader(cur), size, MakeOptions{Filename: "data.bin", URL: "data.bin"})
	if err != nil {
		t.Fatal(err)
	}
	srv, ts := newRangeServer(t, map[string][]byte{"/data.bin": cur, "/data.bin.zsync": encode(t, ctl)})
	dir := t.TempDir()
	peertest.WriteFile(t, dir, "old.bin", old)
	out := runTool(t, dir, zs, "-i", "old.bin", "-o", "new.bin", ts.URL+"/data.bin.zsync")
	got, err := os.ReadFile(filepath.Join(dir, "new.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, cur) {
		t.Fatalf("zsync rebuilt a file that differs from the target\n%s", out)
	}

	m := NewMatcher(ctl, &memFile{})
	if err := m.Seed(bytes.NewReader(old)); err != nil {
		t.Fatal(err)
	}
	var ours int64
	for _, r := range m.Missing() {
		ours += r.Len()
	}
	t.Logf("16 MiB, 64 edits: our matcher would fetch %d B in %d ranges; zsync 0.6.2 asked for %d B of ranges in %d requests; control file %d B",
		ours, len(m.Missing()), srv.sent, srv.reqs, len(encode(t, ctl)))
	if m.Starved != 0 {
		t.Errorf("%d windows not looked up for lack of hashing budget", m.Starved)
	}
	if ours > srv.sent {
		t.Errorf("our matcher would fetch %d bytes, zsync 0.6.2 fetched %d: want no more", ours, srv.sent)
	}
}
