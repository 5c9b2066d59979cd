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
}

// WriteJSON writes the reports as one JSON document.
func WriteJSON(w io.Writer, reports []Report) error {
	if reports == nil {
		reports = []Report{}
	}
	doc := jsonDocument{
		Results: reports,
		Summary: jsonSummary{URLs: len(reports), Unreachable: unreachable(reports), Counts: Tally(reports)},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
