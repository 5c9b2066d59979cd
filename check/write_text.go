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
			fmt.Fprintf(&b, "  %s %-*s  %s [%s]\n", paint(c.Status, marks[c.Status], colour), width, c.ID, c.Message, c.RFC)
		}
		var n Counts
		n.Add(r)
		fmt.Fprintf(&b, "  %s\n", n.String())
	}
	fmt.Fprintf(&b, "\n%s\n", Summary(reports))
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

// Summary is the final line of the text output: how many URLs were checked
// and the counts over all of them.
func Summary(reports []Report) string {
	s := fmt.Sprintf("%s checked: %s", plural(len(reports), "URL"), Tally(reports))
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
