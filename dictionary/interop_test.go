package dictionary

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"path/filepath"
	"testing"
)

// zstdCLI returns the path of the C zstd tool; without it the test is
// skipped, except in CI (CI set), where it fails.
func zstdCLI(t *testing.T) string {
	return peertest.Need(t, "zstd")
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
	dict := peertest.WriteFile(t, dir, "v1", v1)
	frame := peertest.WriteFile(t, dir, "frame.zst", enc[HeaderLen(CodingDCZ):])
	whole := peertest.WriteFile(t, dir, "whole.dcz", enc)
	for _, in := range []string{frame, whole} {
		got := peertest.Run(t, zstd, "-q", "-d", "-c", "-D", dict, in)
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
	dict := peertest.WriteFile(t, dir, "v1", v1)
	data := peertest.WriteFile(t, dir, "v2", v2)
	for _, args := range [][]string{
		{"-q", "-19", "-c", "-D", dict, data},
		{"-q", "-19", "-c", "--patch-from=" + dict, data},
	} {
		frame := peertest.Run(t, zstd, args...)
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
