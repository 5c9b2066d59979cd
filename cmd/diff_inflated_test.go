package cmd

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffPatchInflated: hdig diff --format hdig-vcdiff-inflated between
// two files holding a zlib stream is rebuilt by hdig patch with the same
// format; for files with no stream it is a usage error naming the file.
func TestDiffPatchInflated(t *testing.T) {
	dir := t.TempDir()
	version := func(name, text string) string {
		var z bytes.Buffer
		w, _ := zlib.NewWriterLevel(&z, 6)
		for i := range 3000 {
			fmt.Fprintf(w, "%d %x: %s", i, i*i*7919, text)
		}
		w.Close()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, append([]byte("header\n"), z.Bytes()...), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, nw := version("old", "one line of text, numbered 17\n"), version("new", "one line of text, numbered 18\n")
	delta := filepath.Join(dir, "delta")
	if code, _, stderr := runHdig(t, "diff", "--format", "hdig-vcdiff-inflated", old, nw, "-o", delta); code != ExitOK {
		t.Fatalf("hdig diff = %d: %s", code, stderr)
	}
	code, stdout, stderr := runHdig(t, "patch", "--format", "hdig-vcdiff-inflated", old, delta)
	want, _ := os.ReadFile(nw)
	if code != ExitOK || stdout != string(want) {
		t.Fatalf("hdig patch = %d, %d bytes, want 0 and %d bytes: %s", code, len(stdout), len(want), stderr)
	}
	_, txtOld, txtNew := diffFiles(t)
	code, _, stderr = runHdig(t, "diff", "--format", "hdig-vcdiff-inflated", txtOld, txtNew)
	if code != ExitUsage || !strings.Contains(stderr, "new.txt holds no zlib stream") {
		t.Fatalf("no stream: %d %q, want %d naming new.txt", code, stderr, ExitUsage)
	}
}
