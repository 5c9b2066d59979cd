package patch

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// EncodeDiffE writes a "diff -e" script that turns the base into the
// target, as GNU diff does (including its ".." + "s/.//" escape for a line
// that is a single dot). Both texts are read into memory (WithMaxText,
// default 64 MiB each). Binary input is refused, and so is a non-empty
// target that does not end with a newline: an ed script cannot express it.
func EncodeDiffE(base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer, opts ...Option) error {
	cfg := newConfig(opts)
	if baseSize > int64(cfg.maxText) {
		return limitf("diffe: base of %d bytes over %d", baseSize, cfg.maxText)
	}
	a := make([]byte, baseSize)
	if n, err := base.ReadAt(a, 0); n < len(a) {
		return fmt.Errorf("diffe: read base: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(target, int64(cfg.maxText)+1))
	if err != nil {
		return err
	}
	if len(b) > cfg.maxText {
		return limitf("diffe: target over %d bytes", cfg.maxText)
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{"base", a}, {"target", b}} {
		if bytes.IndexByte(f.b, 0) >= 0 {
			return fmt.Errorf("%w: diffe: %s contains NUL bytes (binary input); use vcdiff or gdiff", ErrUnsupported, f.name)
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return fmt.Errorf("%w: diffe: the target does not end with a newline, which diff -e cannot express; use vcdiff or gdiff", ErrUnsupported)
	}
	al, bl := splitLines(a), splitLines(b)
	ai, bi := internLines(al, bl)
	da, db := diffLines(ai, bi)
	bw := bufio.NewWriterSize(out, 64<<10)
	writeScript(bw, bl, da, db)
	return bw.Flush()
}

// splitLines splits text into lines without their newlines.
func splitLines(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// internLines numbers the distinct lines of a and b.
func internLines(a, b [][]byte) ([]int, []int) {
	ids := make(map[string]int)
	conv := func(ls [][]byte) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[string(l)]
			if !ok {
				id = len(ids)
				ids[string(l)] = id
			}
			out[i] = id
		}
		return out
	}
	return conv(a), conv(b)
}

// writeScript writes the hunks from the bottom up. deleted and inserted
// mark the lines of the base and the target that are not common.
func writeScript(w *bufio.Writer, bl [][]byte, deleted, inserted []bool) {
	type span struct{ i0, i1, j0, j1 int }
	var spans []span
	i, j := 0, 0
	for i < len(deleted) || j < len(inserted) {
		if i < len(deleted) && j < len(inserted) && !deleted[i] && !inserted[j] {
			i, j = i+1, j+1
			continue
		}
		s := span{i0: i, j0: j}
		for i < len(deleted) && deleted[i] {
			i++
		}
		for j < len(inserted) && inserted[j] {
			j++
		}
		s.i1, s.j1 = i, j
		spans = append(spans, s)
	}
	for k := len(spans) - 1; k >= 0; k-- {
		s := spans[k]
		switch {
		case s.i0 == s.i1:
			w.WriteString(strconv.Itoa(s.i0) + "a\n")
		case s.j0 == s.j1:
			w.WriteString(lineRange(s.i0+1, s.i1) + "d\n")
			continue
		default:
			w.WriteString(lineRange(s.i0+1, s.i1) + "c\n")
		}
		writeText(w, bl[s.j0:s.j1])
	}
}

func lineRange(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return strconv.Itoa(lo) + "," + strconv.Itoa(hi)
}

// writeText writes lines ended by ".", escaping a lone "." as GNU diff does:
// "..", end of text, "s/.//", and "a" to go on appending.
func writeText(w *bufio.Writer, lines [][]byte) {
	for k, l := range lines {
		if string(l) == "." {
			w.WriteString("..\n.\ns/.//\n")
			if k < len(lines)-1 {
				w.WriteString("a\n")
			}
			continue
		}
		w.Write(l)
		w.WriteByte('\n')
		if k == len(lines)-1 {
			w.WriteString(".\n")
		}
	}
}
