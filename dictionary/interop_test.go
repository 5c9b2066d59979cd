package dictionary

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// zstdCLI returns the path of the C zstd tool; without it the test is
// skipped, except in CI (CI set), where it fails.
func zstdCLI(t *testing.T) string {
	return peertest.Need(t, "zstd")
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runZstd(t *testing.T, zstd string, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(zstd, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("zstd %v: %v: %s", args, err, errb.String())
	}
	return out.Bytes()
}

// C zstd decodes hdig's dcz: the frame after the 40-byte header, and the
// whole body too, since the header is a skippable frame.
func TestInteropZstdDecodesDCZ(t *testing.T) {
	zstd := zstdCLI(t)
	v1, v2 := versions()
	enc, err := EncodeDCZ(v2, v1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dict := writeFile(t, dir, "v1", v1)
	frame := writeFile(t, dir, "frame.zst", enc[HeaderLen(CodingDCZ):])
	whole := writeFile(t, dir, "whole.dcz", enc)
	for _, in := range []string{frame, whole} {
		got := runZstd(t, zstd, "-q", "-d", "-c", "-D", dict, in)
		if !bytes.Equal(got, v2) {
			t.Fatalf("zstd -d -D dict %s: %d bytes, want %d", filepath.Base(in), len(got), len(v2))
		}
	}
}

// hdig decodes C zstd's output (-D dict and --patch-from) wrapped in the
// dcz header.
func TestInteropDCZFromZstd(t *testing.T) {
	zstd := zstdCLI(t)
	v1, v2 := versions()
	dir := t.TempDir()
	dict := writeFile(t, dir, "v1", v1)
	data := writeFile(t, dir, "v2", v2)
	for _, args := range [][]string{
		{"-q", "-19", "-c", "-D", dict, data},
		{"-q", "-19", "-c", "--patch-from=" + dict, data},
	} {
		frame := runZstd(t, zstd, args...)
		body, _ := AppendHeader(nil, CodingDCZ, HashOf(v1))
		body = append(body, frame...)
		got, err := DecodeDCZ(body, v1, Limits{})
		if err != nil {
			t.Fatalf("zstd %v: %v", args, err)
		}
		if !bytes.Equal(got, v2) {
			t.Fatalf("zstd %v: decoded %d bytes, want %d", args, len(got), len(v2))
		}
	}
}
