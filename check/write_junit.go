package check

import (
	"encoding/xml"
	"io"
)

// JUnit XML, as CI systems (GitHub Actions reporters, GitLab, Jenkins)
// read it: one testsuite per URL, one testcase per check.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name       string        `xml:"name,attr"`
	Classname  string        `xml:"classname,attr"`
	Properties *junitProps   `xml:"properties,omitempty"`
	Failure    *junitProblem `xml:"failure,omitempty"`
	Error      *junitProblem `xml:"error,omitempty"`
	Skipped    *junitSkipped `xml:"skipped,omitempty"`
	SystemOut  string        `xml:"system-out,omitempty"`
}

type junitProps struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the reports as JUnit XML. A failed check is a
// <failure> (an <error> for an origin that could not be reached), a
// skipped one <skipped>, and a warning passes with the message in
// <system-out> and a property status=warn.
func WriteJUnit(w io.Writer, reports []Report) error {
	return writeJUnit(w, reports, false)
}

// WriteJUnitStrict writes the reports as JUnit XML for a gate run with
// --strict, where a warning fails the gate (exit 1): a warned check is a
// <failure>, so the report a CI system shows agrees with the job's status.
func WriteJUnitStrict(w io.Writer, reports []Report) error {
	return writeJUnit(w, reports, true)
}

func writeJUnit(w io.Writer, reports []Report, strict bool) error {
	doc := junitSuites{Name: "hdig check"}
	for _, r := range reports {
		s := junitSuite{Name: r.URL}
		for _, c := range r.Checks {
			s.Cases = append(s.Cases, junitCaseOf(r, c, strict, &s))
		}
		s.Tests = len(s.Cases)
		doc.Suites = append(doc.Suites, s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitCaseOf(r Report, c Result, strict bool, s *junitSuite) junitCase {
	tc := junitCase{Name: c.ID, Classname: r.URL}
	text := gateMessage(c, strict) + " [" + c.RFC + "]"
	switch gateStatus(c.Status, strict) {
	case Fail:
		p := &junitProblem{Message: gateMessage(c, strict), Type: c.ID, Text: text}
		if r.Unreachable && c.ID == "http.status" {
			tc.Error = p
			s.Errors++
		} else {
			tc.Failure = p
			s.Failures++
		}
	case Skip:
		tc.Skipped = &junitSkipped{Message: c.Message}
		s.Skipped++
	case Warn:
		tc.Properties = &junitProps{Property: []junitProperty{{Name: "status", Value: "warn"}, {Name: "rfc", Value: c.RFC}}}
		tc.SystemOut = "warning: " + text
	}
	return tc
}

// gateStatus is how a result counts for the gate: with --strict a warning
// fails it (exit 1), as a failure does.
func gateStatus(st Status, strict bool) Status {
	if strict && st == Warn {
		return Fail
	}
	return st
}

// gateMessage is a result's message as the gate reports it: a warning that
// --strict made a failure says so.
func gateMessage(c Result, strict bool) string {
	if strict && c.Status == Warn {
		return "warning (--strict): " + c.Message
	}
	return c.Message
}
