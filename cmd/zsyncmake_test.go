package cmd

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/zsync"
)

// zsyncmakeFile writes a 100,000-byte file into a temporary directory.
func zsyncmakeFile(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "data.bin")
	data := bytes.Repeat([]byte("zsync blocks of a file, "), 4200)[:100_000]
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// TestZsyncmakeWritesControlFile: -o - prints a control file that reads
// back with the file's length, name, URL and block size.
func TestZsyncmakeWritesControlFile(t *testing.T) {
	_, path := zsyncmakeFile(t)
	code, stdout, stderr := runHdig(t, "zsyncmake", path, "-u", "http://127.0.0.1/data.bin", "-b", "1024", "-o", "-")
	if code != ExitOK {
		t.Fatalf("hdig zsyncmake = %d, want 0: %s", code, stderr)
	}
	c, err := zsync.Read(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if c.Length != 100_000 || c.Blocksize != 1024 || c.Filename != "data.bin" || len(c.URLs) != 1 || c.URLs[0] != "http://127.0.0.1/data.bin" {
		t.Errorf("control file: length %d, block size %d, name %q, URLs %q; want 100000, 1024, data.bin, the -u URL", c.Length, c.Blocksize, c.Filename, c.URLs)
	}
	data, _ := os.ReadFile(path)
	if err := c.Verify(bytes.NewReader(data)); err != nil {
		t.Error(err)
	}
}

// TestZsyncmakeSameAsDebian: without -o, the control file lands in
// the working directory as FILE.zsync, byte for byte what zsyncmake writes.
func TestZsyncmakeSameAsDebian(t *testing.T) {
	zm := peertest.Need(t, "zsyncmake")
	dir, path := zsyncmakeFile(t)
	t.Chdir(dir)
	if code, _, stderr := runHdig(t, "zsyncmake", path); code != ExitOK || !strings.Contains(stderr, "relative URL data.bin") {
		t.Fatalf("hdig zsyncmake = %d, stderr %q; want 0 and a note on the relative URL", code, stderr)
	}
	cmd := exec.Command(zm, "-o", "theirs.zsync", "data.bin")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zsyncmake: %v %s", err, out)
	}
	ours, err1 := os.ReadFile("data.bin.zsync")
	theirs, err2 := os.ReadFile("theirs.zsync")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(ours, theirs) {
		t.Errorf("hdig zsyncmake wrote %d bytes, zsyncmake %d: want the same bytes", len(ours), len(theirs))
	}
}

func TestZsyncmakeUsage(t *testing.T) {
	_, path := zsyncmakeFile(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"zsyncmake"}, "accepts 1 arg"},
		{[]string{"zsyncmake", path, "-b", "1000"}, "-b 1000: want a power of two"},
		{[]string{"zsyncmake", path, "-b", "8"}, "-b 8: want a power of two from 16"},
		{[]string{"zsyncmake", path + ".missing"}, "no such file"},
		{[]string{"zsyncmake", filepath.Dir(path)}, "is a directory"},
	}
	for _, c := range cases {
		code, _, stderr := runHdig(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("hdig %v = %d, %q; want %d and %q", c.args, code, stderr, ExitUsage, c.want)
		}
	}
}

// TestZsyncmakeURLOfAnyName: without -u, the URL: line is FILE's base
// name as a relative URL reference, escaped as hdig serve and hdig index
// write it: a name with a colon, a space, a '#' or a '%' resolves to the
// file itself beside the control file (raw, "a:b" read as a scheme, "#"
// cut the name, "%" did not parse).
func TestZsyncmakeURLOfAnyName(t *testing.T) {
	for _, name := range []string{"a:b.bin", "x #1.bin", "100%.bin"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte("some bytes of a file"), 0o644)
		code, stdout, stderr := runHdig(t, "zsyncmake", path, "-o", "-")
		if code != ExitOK {
			t.Fatalf("hdig zsyncmake %q = %d: %s", name, code, stderr)
		}
		c, err := zsync.Read(strings.NewReader(stdout))
		if err != nil {
			t.Fatal(err)
		}
		got, err := zsync.Resolve("http://127.0.0.1/d/f.zsync", c.URLs[0])
		if err != nil {
			t.Errorf("%q: URL %q does not resolve: %v", name, c.URLs[0], err)
			continue
		}
		u, _ := url.Parse(got)
		if u.Path != "/d/"+name || u.Fragment != "" || u.RawQuery != "" {
			t.Errorf("%q: URL %q resolves to %s; want the file beside the control file", name, c.URLs[0], got)
		}
	}
}
