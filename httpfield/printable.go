package httpfield

import (
	"strings"
	"unicode"
	"unicode/utf8"
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

// Unprintable says r has no place in a file name another party chooses
// (an origin's, for hdig get; a client's, for an upload to hdig serve):
// a control character (terminal escapes, line breaks), a format character
// (bidirectional overrides that show "\u202etxt.exe" as "exe.txt",
// zero-width ones) or a line or paragraph separator.
func Unprintable(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// UnsafeName says a name holds an Unprintable character or is not UTF-8,
// so that it would mislead whoever lists, logs or downloads the file.
func UnsafeName(name string) bool {
	return !utf8.ValidString(name) || strings.ContainsFunc(name, Unprintable)
}
