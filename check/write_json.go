package check

import (
	"encoding/json"
	"io"
)

// jsonDocument is the shape of --json: the contract's
// {"results":[{"url":…,"checks":[{"id","status","message"}]}]}, with the
// "rfc" of each check, "unreachable" per URL and a "summary" added.
type jsonDocument struct {
	Results []Report    `json:"results"`
	Summary jsonSummary `json:"summary"`
}

type jsonSummary struct {
	URLs        int `json:"urls"`
	Unreachable int `json:"unreachable"`
	Counts
	// GateFail counts the checks that fail the gate (GateTally): those
	// failed, and with --strict those warned, which keep their own status
	// in the results and in Counts, of the URLs reached (Unreachable
	// counts the others). Every value of the summary is a
	// number, as it was before this one was added.
	GateFail int `json:"gate_fail"`
}

// WriteJSON writes the reports as one JSON document.
func WriteJSON(w io.Writer, reports []Report) error { return writeJSON(w, reports, false) }

// WriteJSONStrict writes the reports as one JSON document for a gate run
// with --strict: each check keeps its own status, and the summary's
// gate_fail counts the warnings with the failures.
func WriteJSONStrict(w io.Writer, reports []Report) error { return writeJSON(w, reports, true) }

func writeJSON(w io.Writer, reports []Report, strict bool) error {
	if reports == nil {
		reports = []Report{}
	}
	doc := jsonDocument{
		Results: reports,
		Summary: jsonSummary{
			URLs: len(reports), Unreachable: unreachable(reports), Counts: Tally(reports),
			GateFail: GateTally(reports, strict).Fail,
		},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
