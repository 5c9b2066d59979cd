package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/zsync"
)

// TestIndexWritesControlFilesAndInclude: hdig index writes a control file
// that describes each file, an include naming its digest, warns about a
// name nginx cannot be given, and reads nothing again on a second run.
func TestIndexWritesControlFilesAndInclude(t *testing.T) {
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	os.Mkdir(www, 0o755)
	os.WriteFile(filepath.Join(www, "a b.bin"), []byte(strings.Repeat("x", 5000)), 0o644)
	os.WriteFile(filepath.Join(www, "bad\nname"), []byte("y"), 0o644)
	inc := filepath.Join(dir, "hdig.conf")
	code, _, stderr := runHdig(t, "index", www, "--nginx", inc)
	if code != ExitOK || !strings.Contains(stderr, "control character") || !strings.Contains(stderr, "2 files, 2 read (1 control files written, 0 of deleted files removed), 1 left out") {
		t.Fatalf("hdig index = %d, stderr %q; want 0, a warning about bad\\nname, 2 files read", code, stderr)
	}
	f, err := os.Open(filepath.Join(www, "a b.bin.zsync"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := zsync.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.Length != 5000 || len(c.URLs) != 1 || c.URLs[0] != "a%20b.bin" {
		t.Errorf("control file: Length %d, URLs %q; want 5000, [a%%20b.bin]", c.Length, c.URLs)
	}
	b, _ := os.ReadFile(inc)
	if want := `"/a b.bin" "sha-256=:`; !strings.Contains(string(b), want) || !strings.Contains(string(b), "add_header Repr-Digest $hdig_repr_digest always;") {
		t.Errorf("include lacks %s or the add_header line:\n%s", want, b)
	}
	if code, _, stderr := runHdig(t, "index", www, "--nginx", inc); code != ExitOK || !strings.Contains(stderr, "2 files, 0 read") {
		t.Errorf("second hdig index = %d, stderr %q; want 0 and nothing read", code, stderr)
	}
	if code, _, _ := runHdig(t, "index", filepath.Join(www, "a b.bin")); code != ExitUsage {
		t.Errorf("hdig index FILE = %d, want %d", code, ExitUsage)
	}
}
