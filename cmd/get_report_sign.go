package cmd

import (
	"errors"
	"strings"

	"github.com/hdig/hdig/fetch"
)

// jsonSignature is one signature's check in `hdig get --json` (with
// --trust-key): result is valid, invalid or untrusted.
type jsonSignature struct {
	Label  string   `json:"label"`
	KeyID  string   `json:"keyid"`
	Alg    string   `json:"alg,omitempty"`
	Tag    string   `json:"tag,omitempty"`
	Covers []string `json:"covers"`
	Result string   `json:"result"`
	Reason string   `json:"reason,omitempty"`
}

func jsonSignatures(res *fetch.Result) []jsonSignature {
	var out []jsonSignature
	for _, c := range res.Signatures {
		covers := c.Covers
		if covers == nil {
			covers = []string{}
		}
		out = append(out, jsonSignature{Label: c.Label, KeyID: c.KeyID, Alg: c.Alg, Tag: c.Tag,
			Covers: covers, Result: c.Result, Reason: c.Reason})
	}
	return out
}

// signatureLine is the verdict line of --trust-key: authentic, a bad
// signature, or none that proves the bytes; ok is false otherwise.
func signatureLine(p palette, res *fetch.Result, err error, detail string) (string, bool) {
	switch {
	case errors.Is(err, fetch.ErrSignature):
		return p.bad("✖ bad signature") + textf(": %s (%s)", strings.TrimPrefix(err.Error(), fetch.ErrSignature.Error()+": "), detail), true
	case errors.Is(err, fetch.ErrUnsigned):
		why := strings.TrimPrefix(err.Error(), fetch.ErrUnsigned.Error()+": ")
		if m := matched(res.Verdict); m != "" {
			why = "verified " + m + ", but " + why
		}
		return p.bad("✖ not authentic") + textf(": %s (%s)", why, detail), true
	case err == nil && res.Authenticated():
		return p.ok("✔ authentic") + textf(" %s (%s)", strings.Join(res.Authentic, " and "), detail), true
	}
	return "", false
}
