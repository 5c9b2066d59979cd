package patch

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
)

// hunk is one command of a "diff -e" script: append after line lo-1 (op
// 'a', hi = lo-1), or change or delete lines lo..hi ('c', 'd'), with the
// text to put in their place.
type hunk struct {
	op     byte
	lo, hi int
	text   [][]byte
}

// ApplyDiffE applies an ed script as "diff -e" writes it (commands Na,
// N[,M]c and N[,M]d from the bottom of the file up, text ended by a lone
// ".", and GNU's ".." + "s/.//" for a line that is a single dot) to the
// base, streaming the base line by line. Like ed, it ends a last base line
// that lacks a newline with one. Binary input and anything but that subset
// of ed are refused. WithMaxOutput bounds what it writes.
func ApplyDiffE(base io.ReaderAt, baseSize int64, script io.Reader, out io.Writer, opts ...Option) error {
	cfg := newConfig(opts)
	b, err := io.ReadAll(io.LimitReader(script, int64(cfg.maxText)+1))
	if err != nil {
		return err
	}
	if len(b) > cfg.maxText {
		return limitf("diffe: script over %d bytes", cfg.maxText)
	}
	hunks, err := parseDiffE(b)
	if err != nil {
		return err
	}
	if cfg.maxOutput > 0 {
		out = &limitedWriter{w: out, limit: cfg.maxOutput}
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	lr := &lineCopier{r: bufio.NewReaderSize(io.NewSectionReader(base, 0, baseSize), 64<<10), w: bw}
	for i := len(hunks) - 1; i >= 0; i-- {
		h := hunks[i]
		if err := lr.copyTo(h.lo - 1); err != nil {
			return err
		}
		if h.op != 'a' {
			if err := lr.skipTo(h.hi); err != nil {
				return err
			}
		}
		for _, l := range h.text {
			bw.Write(l)
		}
	}
	if err := lr.copyTo(-1); err != nil {
		return err
	}
	return bw.Flush()
}

// parseDiffE parses a script into hunks, checking that they run from the
// bottom of the file up without overlapping. The text of a hunk is kept as
// runs of lines sliced from b, not a slice per line, so that memory stays
// near the size of the script however short its lines.
func parseDiffE(b []byte) ([]hunk, error) {
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, fmt.Errorf("%w: diffe: script contains NUL bytes (binary input)", ErrCorrupt)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return nil, corruptf("diffe: script does not end with a newline")
	}
	var hunks []hunk
	for pos, i := 0, 0; pos < len(b); {
		end := pos + bytes.IndexByte(b[pos:], '\n')
		cmd := string(b[pos:end])
		pos = end + 1
		i++ // line number of cmd
		var h hunk
		switch {
		case cmd == "s/.//" || cmd == "a":
			n := len(hunks) - 1
			if n < 0 || hunks[n].op == 'd' || len(hunks[n].text) == 0 {
				return nil, corruptf("diffe: line %d: %q without text before it", i, cmd)
			}
			if cmd == "s/.//" {
				text := hunks[n].text
				run := text[len(text)-1]
				cut := bytes.LastIndexByte(run[:len(run)-1], '\n') + 1
				last := run[cut:]
				if len(last) < 2 || last[0] != '.' {
					return nil, corruptf("diffe: line %d: s/.// on a line without a leading dot", i)
				}
				text = text[:len(text)-1]
				if cut > 0 {
					text = append(text, run[:cut])
				}
				hunks[n].text = append(text, last[1:])
				continue
			}
			run, next, lines, err := readText(b, pos, i)
			if err != nil {
				return nil, err
			}
			if run != nil {
				hunks[n].text = append(hunks[n].text, run)
			}
			pos, i = next, i+lines
			continue
		default:
			var err error
			if h, err = parseCommand(cmd, i); err != nil {
				return nil, err
			}
		}
		if n := len(hunks); n > 0 && h.hi >= hunks[n-1].lo {
			return nil, corruptf("diffe: line %d: %q is not above the command before it", i, cmd)
		}
		if h.op != 'd' {
			run, next, lines, err := readText(b, pos, i)
			if err != nil {
				return nil, err
			}
			if run != nil {
				h.text = [][]byte{run}
			}
			pos, i = next, i+lines
		}
		hunks = append(hunks, h)
	}
	return hunks, nil
}

// parseCommand parses "Na", "N[,M]c" or "N[,M]d" from line i.
func parseCommand(cmd string, i int) (hunk, error) {
	bad := corruptf("diffe: line %d: want an ed command Na, N[,M]c or N[,M]d, got %.40q", i, cmd)
	if len(cmd) < 2 {
		return hunk{}, bad
	}
	h := hunk{op: cmd[len(cmd)-1]}
	lo, hi, found := bytes.Cut([]byte(cmd[:len(cmd)-1]), []byte(","))
	var err1, err2 error
	h.lo, err1 = strconv.Atoi(string(lo))
	h.hi = h.lo
	if found {
		h.hi, err2 = strconv.Atoi(string(hi))
	}
	switch {
	case err1 != nil || err2 != nil || h.lo < 0 || h.hi < h.lo:
		return hunk{}, bad
	case h.op == 'a' && !found && h.lo < math.MaxInt: // lo+1 must not wrap
		h.lo, h.hi = h.lo+1, h.lo
	case (h.op == 'c' || h.op == 'd') && h.lo >= 1:
	default:
		return hunk{}, bad
	}
	return h, nil
}

// readText reads the text that starts at b[pos], after line i, up to a
// lone "." line. It returns the text lines as one run (nil when there are
// none), the offset after the "." line and the lines consumed with it.
func readText(b []byte, pos, i int) (run []byte, next, lines int, err error) {
	end := 0 // offset of the "." line
	switch {
	case bytes.HasPrefix(b[pos:], []byte(".\n")):
		end = pos
	default:
		k := bytes.Index(b[pos:], []byte("\n.\n"))
		if k < 0 {
			return nil, 0, 0, corruptf("diffe: text from line %d not ended by a \".\" line", i+1)
		}
		end = pos + k + 1
		run = b[pos:end]
	}
	return run, end + 2, bytes.Count(run, []byte("\n")) + 1, nil
}

// lineCopier passes base lines through to w, counting them.
type lineCopier struct {
	r    *bufio.Reader
	w    *bufio.Writer
	line int // lines consumed
}

// copyTo copies lines until n have been consumed (n < 0: to the end).
func (l *lineCopier) copyTo(n int) error { return l.advance(n, true) }

// skipTo drops lines until n have been consumed.
func (l *lineCopier) skipTo(n int) error { return l.advance(n, false) }

func (l *lineCopier) advance(n int, keep bool) error {
	for n < 0 || l.line < n {
		chunk, err := l.r.ReadSlice('\n')
		if len(chunk) == 0 && err == io.EOF {
			if n < 0 {
				return nil
			}
			return corruptf("diffe: script addresses line %d of a %d-line base", n, l.line)
		}
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return err
		}
		if keep {
			l.w.Write(chunk)
			if err == io.EOF {
				l.w.WriteByte('\n') // like ed: the last line gets its newline
			}
		}
		if err != bufio.ErrBufferFull {
			l.line++
		}
		if bytes.IndexByte(chunk, 0) >= 0 {
			return fmt.Errorf("%w: diffe: base contains NUL bytes (binary input)", ErrCorrupt)
		}
	}
	return nil
}
