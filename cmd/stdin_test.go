package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "-" names stdin where an input is read once, in order, as xdelta3 and
// curl users expect: patch's DELTA, diff's NEW, sign's FILE; zsyncmake
// needs FILE's length before its first block, so stdin (or any file that
// is not regular) is spooled first. Each was "open -: no such file", and
// zsyncmake on a pipe failed with "longer than its declared 0 bytes".
func TestStdinAsInput(t *testing.T) {
	dir, old, nw := diffFiles(t)
	want, _ := os.ReadFile(nw)
	delta := filepath.Join(dir, "delta")
	if code, _, stderr := runHdigIn(t, string(want), "diff", old, "-", "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff OLD - = %d: %s", code, stderr)
	}
	d, _ := os.ReadFile(delta)
	code, got, stderr := runHdigIn(t, string(d), "patch", old, "-")
	if code != ExitOK || got != string(want) {
		t.Fatalf("hdig patch OLD - = %d (%d bytes, want %d): %s", code, len(got), len(want), stderr)
	}

	key := filepath.Join(dir, "k.pem")
	if code, _, stderr := runHdig(t, "keygen", "-o", key); code != 0 {
		t.Fatalf("keygen: %d %s", code, stderr)
	}
	_, fromFile, _ := runHdig(t, "sign", "--key", key, nw)
	code, fromStdin, stderr := runHdigIn(t, string(want), "sign", "--key", key, "-")
	if code != 0 || !strings.Contains(fromStdin, "Repr-Digest: ") || lineOf(fromStdin, "Repr-Digest") != lineOf(fromFile, "Repr-Digest") {
		t.Errorf("hdig sign - = %d, %q; want the Repr-Digest of FILE: %q (%s)", code, fromStdin, fromFile, stderr)
	}

	ctlFile := filepath.Join(dir, "a.zsync")
	if code, _, stderr := runHdig(t, "zsyncmake", "-u", "http://h/new.txt", "-o", ctlFile, nw); code != 0 {
		t.Fatalf("zsyncmake FILE: %d %s", code, stderr)
	}
	code, ctl, stderr := runHdigIn(t, string(want), "zsyncmake", "-u", "http://h/new.txt", "-o", "-", "-")
	if code != 0 {
		t.Fatalf("zsyncmake - = %d: %s", code, stderr)
	}
	fromFileCtl, _ := os.ReadFile(ctlFile)
	if withoutMTime(ctl) != withoutMTime(string(fromFileCtl)) {
		t.Errorf("zsyncmake - wrote\n%.300q\nwant, as for the file,\n%.300q", ctl, fromFileCtl)
	}
	if code, _, stderr := runHdigIn(t, "x", "zsyncmake", "-o", "-", "-"); code != ExitUsage || !strings.Contains(stderr, "-u") {
		t.Errorf("zsyncmake - without -u = %d, %q; want a usage error naming -u", code, stderr)
	}
	if code, _, stderr := runHdigIn(t, "x", "zsyncmake", "-u", "http://h/dir/", "-o", "-", "-"); code != ExitUsage || !strings.Contains(stderr, "-f") {
		t.Errorf("zsyncmake -u URL/ - = %d, %q; want a usage error naming -f", code, stderr)
	}
}

// lineOf returns the first line of s that starts with name + ": ".
func lineOf(s, name string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, name+": ") {
			return l
		}
	}
	return ""
}

// withoutMTime drops a control file's MTime line (stdin has none).
func withoutMTime(s string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "MTime: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// zsyncmake - names the file after -u as get -O does (remoteName): a
// segment encoding a slash stays as written, not the part after the
// decoded slash, a name the URL never had (it named "b").
func TestZsyncmakeStdinNameAsRemoteName(t *testing.T) {
	code, ctl, stderr := runHdigIn(t, "x", "zsyncmake", "-u", "http://h/a%2Fb", "-o", "-", "-")
	if code != 0 || lineOf(ctl, "Filename") != "Filename: a%2Fb" {
		t.Errorf("zsyncmake -u http://h/a%%2Fb - = %d, Filename line %q; want %q (%s)", code, lineOf(ctl, "Filename"), "Filename: a%2Fb", stderr)
	}
}
