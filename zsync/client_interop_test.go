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

// TestZsyncClientEdgeSizes: zsync 0.6.2 rebuilds, from a seed lacking a
// block, the files of the sizes at a block's edges with control files we
// made (one byte, one block short, one block, one over, two blocks; pairs
// declared or not; a 16-byte block). An empty file it refuses ("Not a
// zsync file": it takes Length 0 as a header missing), so it is not asked;
// our reader takes zsyncmake's control file of it (TestZsyncmakeSameBytes).
func TestZsyncClientEdgeSizes(t *testing.T) {
	zs := tool(t, "zsync")
	for i, s := range []struct{ n, bs int }{
		{1, 2048}, {2047, 2048}, {2048, 2048}, {2049, 2048}, {4096, 2048}, {4097, 2048},
		{16, 16}, {17, 16}, {48, 16},
	} {
		data := randomBytes(uint64(100+i), s.n)
		ctl := makeControl(t, data, s.bs)
		ctl.URLs = []string{"data.bin"}
		_, ts := newRangeServer(t, map[string][]byte{"/data.bin": data, "/data.bin.zsync": encode(t, ctl)})
		dir := t.TempDir()
		seed := bytes.Clone(data)
		seed[s.n/2] ^= 1
		peertest.WriteFile(t, dir, "old.bin", seed)
		out := runTool(t, dir, zs, "-q", "-i", "old.bin", "-o", "new.bin", ts.URL+"/data.bin.zsync")
		if got, err := os.ReadFile(filepath.Join(dir, "new.bin")); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes, blocks of %d: zsync rebuilt another file (%v)\n%s", s.n, s.bs, err, out)
		}
	}
}
