package check

import (
	"fmt"
	"io"
	"strings"
)

// marks are the symbols of the text table.
var marks = map[Status]string{Pass: "✔", Fail: "✖", Warn: "⚠", Skip: "-"}

// ANSI colours of the marks.
var colours = map[Status]string{Pass: "\x1b[32m", Fail: "\x1b[31m", Warn: "\x1b[33m", Skip: "\x1b[2m"}

// WriteText writes a table per URL, each check on one line with its mark,
// id, message and RFC section, a summary line per URL and a final summary
// line; colour adds ANSI colours to the marks.
func WriteText(w io.Writer, reports []Report, colour bool) error {
	return writeText(w, reports, colour, false)
}

// WriteTextStrict writes the tables for a gate run with --strict, where a
// warning fails the gate: it is marked and counted as a failure
// (gateStatus), as --junit and the exit status have it.
func WriteTextStrict(w io.Writer, reports []Report, colour bool) error {
	return writeText(w, reports, colour, true)
}

func writeText(w io.Writer, reports []Report, colour, strict bool) error {
	width := 0
	for _, c := range Checks {
		width = max(width, len(c.ID))
	}
	var b strings.Builder
	for i, r := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(r.URL + "\n")
		for _, c := range r.Checks {
			st := gateStatus(c.Status, strict)
			fmt.Fprintf(&b, "  %s %-*s  %s [%s]\n", paint(st, marks[st], colour), width, c.ID, gateMessage(c, strict), c.RFC)
		}
		fmt.Fprintf(&b, "  %s\n", tally([]Report{r}, strict))
	}
	fmt.Fprintf(&b, "\n%s\n", summary(reports, strict))
	_, err := io.WriteString(w, b.String())
	return err
}

func paint(s Status, text string, colour bool) string {
	if !colour {
		return text
	}
	return colours[s] + text + "\x1b[0m"
}

// String describes counts: "14 passed, 1 failed, 1 warning, 2 skipped".
func (c Counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %s, %d skipped", c.Pass, c.Fail, plural(c.Warn, "warning"), c.Skip)
}

// summary is the final line of the text output: how many URLs were
// checked and the counts over all of them, counted as the gate does
// (tally).
func summary(reports []Report, strict bool) string {
	s := fmt.Sprintf("%s checked: %s", plural(len(reports), "URL"), tally(reports, strict))
	if n := unreachable(reports); n > 0 {
		s += fmt.Sprintf("; %d unreachable", n)
	}
	return s
}

func unreachable(reports []Report) int {
	n := 0
	for _, r := range reports {
		if r.Unreachable {
			n++
		}
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
