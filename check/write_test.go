package check

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
)

// sample is a report with one check of every status.
var sample = []Report{{URL: "https://example.org/a,b", Checks: []Result{
	{ID: "http.status", Status: Pass, Message: "GET returned 200 OK", RFC: "RFC 9110"},
	{ID: "repr-digest.match", Status: Fail, Message: "100% wrong:\nsee", RFC: "RFC 9530 §3"},
	{ID: "want-repr-digest.honoured", Status: Warn, Message: "ignored", RFC: "RFC 9530 §4"},
	{ID: "delta.226", Status: Skip, Message: "no --base-etag", RFC: "RFC 3229"},
}}, {URL: "http://127.0.0.1:1/", Unreachable: true, Checks: []Result{
	{ID: "http.status", Status: Fail, Message: "GET failed: refused", RFC: "RFC 9110"},
}}}

func TestWriteGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGitHub(&b, sample); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"::group::https://example.org/a,b\n",
		"::error title=hdig check repr-digest.match::https://example.org/a,b: 100%25 wrong:%0Asee [RFC 9530 §3]\n",
		"::warning title=hdig check want-repr-digest.honoured::https://example.org/a,b: ignored [RFC 9530 §4]\n",
		"::endgroup::\n",
		"2 URLs checked: 1 passed, 2 failed, 1 warning, 1 skipped; 1 unreachable\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "::notice") || strings.Contains(out, "::error title=hdig check delta") {
		t.Errorf("annotations for passes or skips:\n%s", out)
	}
}

func TestWriteJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, sample); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	if doc.Tests != 5 || doc.Failures != 1 || doc.Errors != 1 || doc.Skipped != 1 || len(doc.Suites) != 2 {
		t.Errorf("tests %d failures %d errors %d skipped %d suites %d, want 5 1 1 1 2", doc.Tests, doc.Failures, doc.Errors, doc.Skipped, len(doc.Suites))
	}
	warn := doc.Suites[0].Cases[2]
	if warn.Failure != nil || !strings.HasPrefix(warn.SystemOut, "warning: ignored") || warn.Properties == nil {
		t.Errorf("warning case %+v", warn)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sample); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			URL    string
			Checks []map[string]string
		}
		Summary map[string]int
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Results[0].Checks[1]
	if c["id"] != "repr-digest.match" || c["status"] != "fail" || c["rfc"] != "RFC 9530 §3" || c["message"] == "" {
		t.Errorf("check %v", c)
	}
	if doc.Summary["fail"] != 2 || doc.Summary["unreachable"] != 1 || doc.Summary["urls"] != 2 {
		t.Errorf("summary %v", doc.Summary)
	}
}

// Under --strict a warning fails the gate: the tables (text, and each
// group of --format github) mark it as a failure and count it as one, as
// the annotations, --junit and the exit status do.
func TestStrictTablesAgree(t *testing.T) {
	var gh, text bytes.Buffer
	if err := WriteGitHubStrict(&gh, sample); err != nil {
		t.Fatal(err)
	}
	if err := WriteTextStrict(&text, sample, false); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"github": gh.String(), "text": text.String()} {
		if strings.Contains(out, "⚠") {
			t.Errorf("%s: a warning still marked ⚠ under --strict:\n%s", name, out)
		}
		for _, want := range []string{
			"✖ want-repr-digest.honoured",
			"warning (--strict): ignored",
			"1 passed, 2 failed, 0 warnings, 1 skipped\n",
			"2 URLs checked: 1 passed, 3 failed, 0 warnings, 1 skipped; 1 unreachable\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", name, want, out)
			}
		}
	}
}
