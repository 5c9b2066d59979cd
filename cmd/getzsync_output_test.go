package cmd

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 9 item 8 holds for --zsync too: -o LINK writes through the link to
// its target (the link stays); a FIFO or device is never replaced by a
// regular file.
func TestGetZsyncOutputLinkAndFIFO(t *testing.T) {
	dir := t.TempDir()
	cur := zsyncData(7, 50_000)
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), cur, 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServe(t, dir)
	work := t.TempDir()
	target := filepath.Join(work, "real.bin")
	link := filepath.Join(work, "link.bin")
	if err := os.Symlink("real.bin", link); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runHdig(t, "get", "--zsync", "-o", link, url+"data.bin.zsync")
	if code != ExitOK {
		t.Fatalf("hdig get --zsync -o LINK = %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("-o LINK: the link was replaced (%v, %v)", fi.Mode(), err)
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != string(cur) {
		t.Errorf("-o LINK: its target does not hold the file (%d bytes, %v)", len(got), err)
	}

	fifo := filepath.Join(work, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	code, _, errOut = runHdig(t, "get", "--zsync", "-o", fifo, url+"data.bin.zsync")
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("-o FIFO: the FIFO was replaced (exit %d, %v, %v)", code, fi.Mode(), err)
	}
	if code != ExitUsage || !strings.Contains(errOut, "regular file") {
		t.Errorf("-o FIFO = %d, %q; want 2 and a usage error", code, errOut)
	}
	code, _, errOut = runHdig(t, "get", "--zsync", "-o", work, url+"data.bin.zsync")
	if code != ExitUsage || !strings.Contains(errOut, "directory") {
		t.Errorf("-o DIR = %d, %q; want 2 before anything is fetched", code, errOut)
	}
}

// --max-filesize bounds --zsync's output as it bounds every other: the
// control file's Length is refused before a block is written.
func TestGetZsyncMaxFilesizeBeforeRanges(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), zsyncData(8, 50_000), 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServe(t, dir)
	out := filepath.Join(t.TempDir(), "new.bin")
	code, _, errOut := runHdig(t, "get", "--zsync", "--max-filesize", "10000", "-o", out, url+"data.bin.zsync")
	if code != ExitNetwork || !strings.Contains(errOut, "--max-filesize") {
		t.Errorf("hdig get --zsync --max-filesize 10000 of 50000 bytes = %d, %q; want 4 naming --max-filesize", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the output was written")
	}
	if _, err := os.Stat(out + ".hdig-part"); err == nil {
		t.Error("the part file was left behind")
	}
}

// A digest the user asked to be checked is never ignored: --zsync checks
// --expect and --checksum-file against the rebuilt file before it is
// renamed (a wrong one: exit 1, nothing written; a right one: exit 0), and
// --require-digest exits 3 when nothing accepted proved the file.
func TestGetZsyncChecksUserDigests(t *testing.T) {
	dir := t.TempDir()
	data := zsyncData(9, 20_000)
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServe(t, dir)
	work := t.TempDir()
	sums := filepath.Join(work, "SHA256SUMS")
	wrong := strings.Repeat("0", 64)
	right := fmt.Sprintf("%x", sha256.Sum256(data))
	if err := os.WriteFile(sums, []byte(wrong+"  new.bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "new.bin")
	for _, flags := range [][]string{
		{"--expect", "sha256:" + wrong},
		{"--checksum-file", sums},
	} {
		args := append(append([]string{"get", "--zsync"}, flags...), "-o", out, url+"data.bin.zsync")
		code, _, errOut := runHdig(t, args...)
		if code != ExitIntegrity || !strings.Contains(errOut, flags[0]) {
			t.Errorf("hdig %v = %d, %q; want 1 naming %s", args, code, errOut, flags[0])
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: the output was written", flags)
		}
	}
	code, stdout, errOut := runHdig(t, "get", "--json", "--zsync", "--expect", "sha256:"+right, "--require-digest", "-o", out, url+"data.bin.zsync")
	if code != ExitOK || !strings.Contains(stdout, `"--expect"`) {
		t.Errorf("right --expect: %d, %s %q; want 0 and a --expect check in the verdict", code, stdout, errOut)
	}
	// An origin without Repr-Digest: only the deprecated SHA-1 is there.
	o := &singleRangeOrigin{}
	zurl, seed, out2 := singleRangeSetup(t, o)
	code, _, errOut = runHdig(t, "get", "--no-cache", "--zsync", "--require-digest", "--seed", seed, "-o", out2, zurl)
	if code != ExitUnverified {
		t.Errorf("--require-digest without Repr-Digest: %d, %q; want 3", code, errOut)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Error("--require-digest unmet: the output was written")
	}
}
