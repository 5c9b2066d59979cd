package check

import (
	"fmt"
	"io"
	"strings"
)

// WriteGitHub writes GitHub Actions workflow commands: the table of each
// URL in a collapsible ::group::, then an ::error annotation per failed
// check and a ::warning per warning, and the summary line.
func WriteGitHub(w io.Writer, reports []Report) error {
	return writeGitHub(w, reports, false)
}

// WriteGitHubStrict writes the workflow commands for a gate run with
// --strict, where a warning fails the gate: its annotation is an ::error.
func WriteGitHubStrict(w io.Writer, reports []Report) error {
	return writeGitHub(w, reports, true)
}

func writeGitHub(w io.Writer, reports []Report, strict bool) error {
	var b strings.Builder
	for _, r := range reports {
		fmt.Fprintf(&b, "::group::%s\n", escapeData(r.URL))
		var one strings.Builder
		if err := writeText(&one, []Report{r}, false, strict); err != nil {
			return err
		}
		text, _, _ := strings.Cut(one.String(), "\n\n")
		b.WriteString(text + "\n")
		b.WriteString("::endgroup::\n")
	}
	for _, r := range reports {
		for _, c := range r.Checks {
			level := map[Status]string{Fail: "error", Warn: "warning"}[gateStatus(c.Status, strict)]
			if level == "" {
				continue
			}
			title := "hdig check " + c.ID
			msg := fmt.Sprintf("%s: %s [%s]", r.URL, gateMessage(c, strict), c.RFC)
			fmt.Fprintf(&b, "::%s title=%s::%s\n", level, escapeProperty(title), escapeData(msg))
		}
	}
	b.WriteString(summary(reports, strict) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeData escapes the message of a workflow command.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value of a workflow command.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
