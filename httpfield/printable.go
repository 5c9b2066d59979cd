package httpfield

import (
	"strings"
	"unicode"
)

// Printable is text a server or a file chose (a reason phrase, an error
// body, a control file's or checksum file's line, and every message that
// names such text) made fit for one line of a terminal: line breaks and
// tabs as spaces, other control and unprintable characters (a terminal's
// escape sequences, C1 controls, bidirectional overrides) dropped, invalid
// UTF-8 as U+FFFD, runs of spaces one. A "✔ verified" it carries cannot
// start a line of its own.
func Printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
