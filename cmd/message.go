package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/spf13/cobra"
)

// linef writes one line of a message on stderr (an error, a warning, a
// note) made printable (httpfield.Printable): what a server or a hostile
// file put into it (a control file's key, a checksum file's escaped name,
// an error's text) cannot move the cursor, change the terminal or start
// a line of its own that forges "✔ verified".
func linef(w io.Writer, format string, a ...any) {
	fmt.Fprintln(w, httpfield.Printable(fmt.Sprintf(format, a...)))
}

// usageHelpf is a usage error (exit 2) that is followed, on a line of its
// own, by where the command's help is.
func usageHelpf(c *cobra.Command, format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...), hint: fmt.Sprintf("Run '%s --help' for usage.", c.CommandPath())}
}

// printError writes the error line of a failed command, and its hint.
func printError(w io.Writer, err error) {
	linef(w, "hdig: %v", err)
	var ee *exitError
	if errors.As(err, &ee) && ee.hint != "" {
		fmt.Fprintln(w, ee.hint)
	}
}

// textf is fmt.Sprintf made printable (httpfield.Printable), its leading
// space kept: the text of a verdict line after its coloured mark, which
// carries header values.
func textf(format string, a ...any) string {
	s := fmt.Sprintf(format, a...)
	if strings.HasPrefix(s, " ") {
		return " " + httpfield.Printable(s)
	}
	return httpfield.Printable(s)
}

// listLine writes a listing's fields, tab-separated, each made printable:
// what an origin chose (an ETag, a URL, a dictionary's id) can hold
// control characters a terminal would obey. --json keeps them as stored.
func listLine(w io.Writer, fields []string) {
	for i, f := range fields {
		fields[i] = httpfield.Printable(f)
	}
	fmt.Fprintln(w, strings.Join(fields, "\t"))
}
