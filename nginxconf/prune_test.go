package nginxconf

import (
	"bytes"
	"fmt"
	"io"
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

// TestIndexChangedWhileReadKeepsControlFile: a file rewritten while Index
// read it is left out, and its control file, which Index wrote before it
// compared the file's identity with the one it had opened, was replaced by
// one describing the bytes read, a splice of two versions (SHA-1 and
// block checksums of no version that ever was). It is written
// only once the read is known to be one version.
func TestIndexChangedWhileReadKeepsControlFile(t *testing.T) {
	www := filepath.Join(t.TempDir(), "www")
	v1 := bytes.Repeat([]byte("abc"), 1<<20) // more than one read
	writeTree(t, www, map[string][]byte{"a.bin": v1})
	if _, _, err := Index(www, Options{}); err != nil {
		t.Fatal(err)
	}
	ctlPath := filepath.Join(www, "a.bin.zsync")
	before, err := os.ReadFile(ctlPath)
	if err != nil {
		t.Fatal(err)
	}
	v2 := bytes.Repeat([]byte("xyz"), len(v1)/3) // same size: only the identity tells
	wrapRead = func(p string, r io.Reader) io.Reader {
		if filepath.Base(p) != "a.bin" {
			return r
		}
		return &rewriteAfterFirstRead{r: r, path: p, to: v2, t: t}
	}
	defer func() { wrapRead = nil }()
	var warned []string
	entries, _, err := Index(www, Options{Warnf: func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.URI == "/a.bin" {
			t.Errorf("a file changed while read was indexed: %+v", e)
		}
	}
	if len(warned) == 0 {
		t.Error("no warning for a file changed while read")
	}
	if got, _ := os.ReadFile(ctlPath); !bytes.Equal(got, before) {
		t.Errorf("the control file was replaced while its file changed under the read (warnings %q)", warned)
	}
}

// rewriteAfterFirstRead rewrites path with to once its first Read is done.
type rewriteAfterFirstRead struct {
	r    io.Reader
	path string
	to   []byte
	t    *testing.T
	done bool
}

func (w *rewriteAfterFirstRead) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if !w.done {
		w.done = true
		if err := os.WriteFile(w.path, w.to, 0o644); err != nil {
			w.t.Error(err)
		}
	}
	return n, err
}
