// Package check audits an origin's RFC 9530 digest fields and its range,
// content-coding, HEAD and RFC 3229 delta behaviour, for use as a CI gate
// (hdig check). Every URL gets the same list of checks, each with a stable
// id, a status, a one-line message saying what was expected and what came
// back, and the RFC section it rests on. Run audits URLs concurrently; the
// Write functions render the reports as text, JSON, JUnit XML or GitHub
// Actions workflow commands.
package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hdig/hdig/httpfield"
)

// Status is the outcome of one check.
type Status string

// Statuses, as the contract names them.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Warn Status = "warn"
	Skip Status = "skip"
)

// Result is the outcome of one check of one URL.
type Result struct {
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	RFC     string `json:"rfc"`
}

// Report is the audit of one URL: one Result per entry of Checks, in that
// order.
type Report struct {
	URL    string   `json:"url"`
	Checks []Result `json:"checks"`
	// Unreachable is set when the origin could not be reached at all
	// (refused, reset, timed out, TLS failure): hdig check then exits 4.
	Unreachable bool `json:"unreachable,omitempty"`
}

// Spec describes a check: its stable id and the section it rests on.
type Spec struct {
	ID  string
	RFC string
}

// Checks lists every check in report order. Ids are stable: scripts and CI
// configurations may rely on them.
var Checks = []Spec{
	{"http.status", "RFC 9110 §9.3.1, §15.3.1"},
	{"repr-digest.present", "RFC 9530 §3"},
	{"repr-digest.syntax", "RFC 9530 §3; RFC 8941 §3.2"},
	{"repr-digest.algorithm", "RFC 9530 §5"},
	{"repr-digest.match", "RFC 9530 §3"},
	{"content-digest.syntax", "RFC 9530 §2; RFC 8941 §3.2"},
	{"content-digest.match", "RFC 9530 §2"},
	{"foreign-digest.match", "RFC 1864; RFC 3230; draft-ietf-httpbis-unencoded-digest"},
	{"head.repr-digest", "RFC 9530 §3; RFC 9110 §9.3.2"},
	{"head.content-digest", "RFC 9530 §2, App. B.2"},
	{"range.partial", "RFC 9110 §14.4, §15.3.7"},
	{"range.content-digest", "RFC 9530 §2, App. B.3"},
	{"range.repr-digest", "RFC 9530 §3, App. B.3"},
	{"range.multipart", "RFC 9110 §14.6, §15.3.7.2; RFC 9530 §2"},
	{"encoding.repr-digest", "RFC 9530 §3, App. B.4"},
	{"encoding.content-digest", "RFC 9530 §2"},
	{"encoding.decode", "RFC 9110 §8.4; RFC 9530 §3, App. B.4"},
	{"encoding.vary", "RFC 9110 §12.5.5"},
	{"want-repr-digest.honoured", "RFC 9530 §4"},
	{"etag.consistency", "RFC 9110 §8.8.3; RFC 9530 §3"},
	{"delta.226", "RFC 3229 §10.4.1, §10.5, §10.7; RFC 9530 §2, §3"},
	{"zsync.control", "zsync 0.6.2 control file; RFC 8288 §3"},
	{"cors.expose", "Fetch Standard §3.2.3 (CORS protocol)"},
	{"signature.present", "RFC 9421 §4.1, §4.2"},
	{"signature.valid", "RFC 9421 §3.2"},
	{"signature.key-trusted", "RFC 9421 §3.2, §3.2.1"},
	{"signature.repr-digest", "RFC 9421 §2.1, §3.2.1; RFC 9530 §6.3"},
	{"signature.created", "RFC 9421 §2.3, §3.2.1"},
	{"dictionary.syntax", "RFC 9842 §2.1"},
	{"dictionary.vary", "RFC 9842 §6.2"},
	{"dictionary.hash", "RFC 9842 §4, §5"},
	{"dictionary.decode", "RFC 9842 §4, §5"},
	{"dictionary.repr-digest", "RFC 9530 §3; RFC 9842 §6.2"},
	{"dictionary.unencoded", "draft-ietf-httpbis-unencoded-digest; RFC 9842 §6.2"},
}

// rfcOf returns the section a check rests on.
func rfcOf(id string) string {
	for _, s := range Checks {
		if s.ID == id {
			return s.RFC
		}
	}
	panic("check: developer error: unknown check id " + id)
}

// Counts tallies results by status.
type Counts struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
	Warn int `json:"warn"`
	Skip int `json:"skip"`
}

// Add counts the results of a report.
func (c *Counts) Add(r Report) { c.add(r, false) }

// add counts the results of a report as the gate does (gateStatus): with
// strict a warning counts as a failure.
func (c *Counts) add(r Report, strict bool) {
	for _, x := range r.Checks {
		switch gateStatus(x.Status, strict) {
		case Pass:
			c.Pass++
		case Fail:
			c.Fail++
		case Warn:
			c.Warn++
		case Skip:
			c.Skip++
		}
	}
}

// Tally counts the results of all reports.
func Tally(rs []Report) Counts { return tally(rs, false) }

// GateTally counts the results as the gate does: of the reports whose
// origin was reached (an unreachable URL's failed http.status says only
// that it was not reached: exit 4, not 1), and with strict (--strict) a
// warning counts as a failure (gateStatus).
func GateTally(rs []Report, strict bool) Counts {
	var reached []Report
	for _, r := range rs {
		if !r.Unreachable {
			reached = append(reached, r)
		}
	}
	return tally(reached, strict)
}

// tally is Tally counting as the gate does (Counts.add).
func tally(rs []Report, strict bool) Counts {
	var c Counts
	for _, r := range rs {
		c.add(r, strict)
	}
	return c
}

// sheet collects the results of one URL as the checks run.
type sheet struct {
	m map[string]Result
	// cut, when set, returns why the audit was cut short (--max-time ran
	// out), nil while it runs in time. A check decided after that is
	// passed or failed on what it saw; anything else it would be (a skip,
	// a warning) fails, naming the cause: an audit cut short never passes
	// by skipping what it had no time for.
	cut func() error
	// notes are said with a check's result when it is decided (note).
	notes map[string][]string
	// asides are too, its status kept (aside).
	asides map[string][]string
}

func newSheet() *sheet { return &sheet{m: map[string]Result{}} }

// note has the result of check id, when it is decided, say msg: what the
// check saw but could not judge (a field with no member hdig computes).
// A pass with a note is a warning, as foreign-digest.match warns of what
// it could not compare: it was not all checked.
func (s *sheet) note(id, msg string) {
	if s.notes == nil {
		s.notes = map[string][]string{}
	}
	if !slices.Contains(s.notes[id], msg) {
		s.notes[id] = append(s.notes[id], msg)
	}
}

// aside has the result of check id, when it is decided, say msg, its
// status kept: what the audit did not compare for a limit of its own (the
// user's --max-body), which is no fault of the origin's and must not fail
// it under --strict, yet is said, never dropped.
func (s *sheet) aside(id, msg string) {
	if s.asides == nil {
		s.asides = map[string][]string{}
	}
	if !slices.Contains(s.asides[id], msg) {
		s.asides[id] = append(s.asides[id], msg)
	}
}

func (s *sheet) set(id string, st Status, msg string) {
	if as := s.asides[id]; len(as) > 0 {
		msg += "; " + strings.Join(as, "; ")
	}
	if ns := s.notes[id]; len(ns) > 0 {
		msg += "; but " + strings.Join(ns, "; ")
		if st == Pass {
			st = Warn
		}
	}
	if st != Pass && st != Fail && s.cut != nil {
		if err := s.cut(); err != nil {
			st, msg = Fail, fmt.Sprintf("%s (%v)", msg, err)
		}
	}
	// What the origin said is quoted in msg: printable, it cannot change
	// the terminal or overwrite the row with a "✔" of its own.
	s.m[id] = Result{ID: id, Status: st, Message: httpfield.Printable(msg), RFC: rfcOf(id)}
}

func (s *sheet) pass(id, msg string) { s.set(id, Pass, msg) }
func (s *sheet) fail(id, msg string) { s.set(id, Fail, msg) }
func (s *sheet) warn(id, msg string) { s.set(id, Warn, msg) }
func (s *sheet) skip(id, msg string) { s.set(id, Skip, msg) }

// skipRest marks every check not yet decided as skipped with msg.
func (s *sheet) skipRest(msg string) {
	for _, c := range Checks {
		s.skipUndecided(msg, c.ID)
	}
}

// skipUndecided marks those of ids not yet decided as skipped with msg.
func (s *sheet) skipUndecided(msg string, ids ...string) {
	for _, id := range ids {
		if _, ok := s.m[id]; !ok {
			s.skip(id, msg)
		}
	}
}

// ordered returns the results in the order of Checks.
func (s *sheet) ordered() []Result {
	s.skipRest("not checked")
	out := make([]Result, 0, len(Checks))
	for _, c := range Checks {
		out = append(out, s.m[c.ID])
	}
	return out
}
