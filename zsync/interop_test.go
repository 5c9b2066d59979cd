package zsync

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// interopSizes cover one block, a partial last block, seq_matches 1 and 2,
// and checksum lengths 3 to 5.
var interopSizes = []struct {
	n  int
	bs int
}{
	{0, 0}, {1, 0}, {5, 0}, {2047, 0}, {2048, 0}, {2049, 0}, {4096, 0}, {10000, 0}, {100000, 0}, {300001, 0},
	{5000, 65536}, {70000, 512}, {3 << 20, 1024},
}

// TestZsyncmakeSameBytes: for the same file and flags, Make and WriteTo
// produce exactly the bytes Debian's zsyncmake 0.6.2 writes, and Read of
// zsyncmake's file gives back what Make computed.
func TestZsyncmakeSameBytes(t *testing.T) {
	zm := tool(t, "zsyncmake")
	for i, s := range interopSizes {
		dir := t.TempDir()
		data := randomBytes(uint64(i), s.n)
		path := peertest.WriteFile(t, dir, "target.bin", data)
		args := []string{"-u", "http://127.0.0.1/target.bin", "-o", "theirs.zsync"}
		if s.bs != 0 {
			args = append(args, "-b", itoa(s.bs))
		}
		runTool(t, dir, zm, append(args, "target.bin")...)
		theirs, err := os.ReadFile(filepath.Join(dir, "theirs.zsync"))
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := Make(bytes.NewReader(data), int64(len(data)), MakeOptions{
			Blocksize: s.bs, Filename: "target.bin", MTime: st.ModTime(), URL: "http://127.0.0.1/target.bin"})
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(t, ours); !bytes.Equal(got, theirs) {
			t.Errorf("size %d bs %d: our control file (%d B) differs from zsyncmake's (%d B) at byte %d",
				s.n, s.bs, len(got), len(theirs), firstDiff(got, theirs))
		}
		read, err := Read(bytes.NewReader(theirs))
		if err != nil {
			t.Fatalf("size %d: Read(zsyncmake output): %v", s.n, err)
		}
		if got := encode(t, read); !bytes.Equal(got, theirs) {
			t.Errorf("size %d: Read then WriteTo differs from zsyncmake's file at byte %d", s.n, firstDiff(got, theirs))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func itoa(n int) string { return strconv.Itoa(n) }
