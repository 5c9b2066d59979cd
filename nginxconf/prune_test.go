package nginxconf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/zsync"
)

// TestIndexRemovesControlOfDeletedFile: a re-run removes the control files
// it wrote (listed in the include, naming the file as hdig index writes
// it, unchanged since) whose file is gone, and no other .zsync: a user's
// own control file, one the include never listed, or one edited since.
func TestIndexRemovesControlOfDeletedFile(t *testing.T) {
	dir := t.TempDir()
	www, inc := filepath.Join(dir, "www"), filepath.Join(dir, "digests.conf")
	data := bytes.Repeat([]byte("xyz"), 5000)
	writeTree(t, www, map[string][]byte{"a.bin": data, "b.bin": data, "c.bin": data, "sub/e.bin": data, "edited.bin": data})
	theirs, err := zsync.Make(bytes.NewReader(data), int64(len(data)), zsync.MakeOptions{Filename: "c.bin", URL: "http://mirror.example/c.bin"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	theirs.WriteTo(&buf)
	writeTree(t, www, map[string][]byte{"c.bin.zsync": buf.Bytes()})
	runIndex(t, www, inc)
	orphan, _ := os.ReadFile(filepath.Join(www, "a.bin.zsync"))
	writeTree(t, www, map[string][]byte{"d.bin.zsync": orphan}) // never listed
	f, err := os.OpenFile(filepath.Join(www, "edited.bin.zsync"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	f.Close()
	for _, name := range []string{"a.bin", "c.bin", "sub/e.bin", "edited.bin"} {
		if err := os.Remove(filepath.Join(www, name)); err != nil {
			t.Fatal(err)
		}
	}
	st := runIndex(t, www, inc)
	for name, want := range map[string]bool{"a.bin.zsync": false, "sub/e.bin.zsync": false, "b.bin.zsync": true, "c.bin.zsync": true, "d.bin.zsync": true, "edited.bin.zsync": true} {
		_, err := os.Stat(filepath.Join(www, name))
		if got := err == nil; got != want {
			t.Errorf("%s exists: %v, want %v", name, got, want)
		}
	}
	if st.Removed != 2 {
		t.Errorf("Removed = %d, want 2", st.Removed)
	}
	b, _ := os.ReadFile(inc)
	if strings.Contains(string(b), `"/a.bin.zsync"`) || !strings.Contains(string(b), `"/c.bin.zsync"`) {
		t.Error("the include lists a removed control file, or not a kept one")
	}
}
