package patch

import (
	"bytes"
	"errors"
	"github.com/hdig/hdig/internal/peertest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func encodeDiffE(base, target []byte) ([]byte, error) {
	var out bytes.Buffer
	err := EncodeDiffE(bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &out)
	return out.Bytes(), err
}

func applyDiffE(base, script []byte) ([]byte, error) {
	var out bytes.Buffer
	err := ApplyDiffE(bytes.NewReader(base), int64(len(base)), bytes.NewReader(script), &out)
	return out.Bytes(), err
}

var diffeTexts = []struct{ name, base, target string }{
	{"identical", "a\nb\n", "a\nb\n"},
	{"empty to text", "", "a\nb\n"},
	{"text to empty", "a\nb\n", ""},
	{"change", "a\nb\nc\n", "a\nB\nc\n"},
	{"insert top", "a\nb\n", "x\na\nb\n"},
	{"delete", "a\nb\nc\nd\n", "a\nd\n"},
	{"dots", "a\nb\nc\n", "a\n.\nx\n.\n.\nb\nq\n"},
	{"only dot", "a\nb\nc\n", ".\n"},
	{"base without final newline", "a\nb", "a\nb\nc\n"},
	{"mixed", "1\n2\n3\n4\n5\n6\n7\n8\n", "0\n1\n3\n4\nfour\n5\n8\n9\n"},
}

func TestDiffERoundTrip(t *testing.T) {
	cases := diffeTexts
	txt := text(7, 200_000)
	cases = append(cases, struct{ name, base, target string }{"edited text", string(txt), string(textEdits(txt, 8, 200))})
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			script, err := encodeDiffE([]byte(tt.base), []byte(tt.target))
			if err != nil {
				t.Fatalf("EncodeDiffE: %v", err)
			}
			got, err := applyDiffE([]byte(tt.base), script)
			if err != nil {
				t.Fatalf("ApplyDiffE: %v\nscript:\n%s", err, script)
			}
			if string(got) != tt.target {
				t.Errorf("ApplyDiffE(EncodeDiffE) = %q, want %q\nscript:\n%s", got, tt.target, script)
			}
		})
	}
}

// TestDiffEGNU applies GNU diff -e's scripts, and checks ed applies ours.
func TestDiffEGNU(t *testing.T) {
	diff, ed := peertest.Need(t, "diff"), peertest.Need(t, "ed")
	for _, tt := range diffeTexts {
		if strings.HasSuffix(tt.name, "newline") {
			continue // GNU diff -e prints a warning instead
		}
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			old := peertest.WriteFile(t, dir, "old", []byte(tt.base))
			nw := peertest.WriteFile(t, dir, "new", []byte(tt.target))
			script, _ := exec.Command(diff, "-e", old, nw).Output()
			got, err := applyDiffE([]byte(tt.base), script)
			if err != nil || string(got) != tt.target {
				t.Fatalf("ApplyDiffE(diff -e) = %q, %v; want %q\nscript:\n%s", got, err, tt.target, script)
			}
			ours, err := encodeDiffE([]byte(tt.base), []byte(tt.target))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ours, script) {
				t.Logf("script differs from GNU's (both valid):\nours:\n%s\nGNU:\n%s", ours, script)
			}
			if tt.target == "" {
				return
			}
			cmd := exec.Command(ed, "-s", old)
			cmd.Stdin = bytes.NewReader(append(ours, []byte("w "+filepath.Join(dir, "ed.out")+"\nq\n")...))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("ed: %v %s", err, out)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "ed.out")); string(b) != tt.target {
				t.Errorf("ed applying our script = %q, want %q", b, tt.target)
			}
		})
	}
}

func TestDiffERefuses(t *testing.T) {
	if _, err := encodeDiffE([]byte("a\n"), []byte("a\x00\n")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("EncodeDiffE of binary target: error = %v, want ErrUnsupported", err)
	}
	if _, err := encodeDiffE([]byte("a\n"), []byte("a\nb")); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "newline") {
		t.Errorf("EncodeDiffE without final newline: error = %v, want ErrUnsupported naming the newline", err)
	}
	bad := []string{"1x\n", "2a\nfoo\n", "1,2c\n.\n1d\n", "3d\n5d\n", "s/.//\n", "1a\nb\x00\n.\n", "0d\n", "9d\n"}
	for _, s := range bad {
		if _, err := applyDiffE([]byte("a\nb\nc\n"), []byte(s)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ApplyDiffE(%q): error = %v, want ErrCorrupt", s, err)
		}
	}
}

// TestDiffEMaxOutput: ApplyDiffE honours WithMaxOutput as the other
// decoders do: a script (or base) that makes more than the limit fails
// with ErrLimit, having written no more than it; the limit itself passes.
func TestDiffEMaxOutput(t *testing.T) {
	base := bytes.Repeat([]byte("a line of the base\n"), 1000)
	script := []byte("1000a\n" + strings.Repeat("an appended line\n", 1000) + ".\n")
	var full bytes.Buffer
	if err := ApplyDiffE(bytes.NewReader(base), int64(len(base)), bytes.NewReader(script), &full); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{int64(len(base)) / 2, int64(full.Len()) - 1} {
		var out bytes.Buffer
		err := ApplyDiffE(bytes.NewReader(base), int64(len(base)), bytes.NewReader(script), &out, WithMaxOutput(limit))
		if !errors.Is(err, ErrLimit) || int64(out.Len()) > limit {
			t.Errorf("WithMaxOutput(%d) of a %d-byte result: %d bytes written, error %v; want ErrLimit", limit, full.Len(), out.Len(), err)
		}
	}
	var out bytes.Buffer
	if err := ApplyDiffE(bytes.NewReader(base), int64(len(base)), bytes.NewReader(script), &out, WithMaxOutput(int64(full.Len()))); err != nil || !bytes.Equal(out.Bytes(), full.Bytes()) {
		t.Errorf("WithMaxOutput(%d) of a result that size: %v", full.Len(), err)
	}
}
