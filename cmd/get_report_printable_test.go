package cmd

import (
	"errors"
	"strings"
	"testing"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/verify"
)

// The verdict line carries text from headers (a 226's Delta-Base and IM, a
// mirror's URL, a signature's key id and error). Header values may hold
// non-ASCII bytes: a C1 control (U+009B is a CSI on some terminals) or a
// bidi override (U+202E) must not reach the terminal, as the rest of
// hdig's message lines keep them out (linef).
func TestVerdictLinePrintable(t *testing.T) {
	hostile := "\"v1\u009b2J\u202edetrevnu\""
	o := &getOptions{Accept: "sha-256"}
	for name, c := range map[string]struct {
		res *fetch.Result
		err error
	}{
		"delta":         {&fetch.Result{Strategy: fetch.StrategyDelta, IM: []string{"vcdiff\u009b"}, DeltaBase: hostile, Bytes: 10, Received: 5}, nil},
		"unverified":    {&fetch.Result{Strategy: fetch.StrategyDelta, DeltaBase: hostile}, nil},
		"bad signature": {&fetch.Result{Verdict: verify.Verdict{}}, errors.Join(fetch.ErrSignature, errors.New("keyid "+hostile))},
	} {
		line := verdictLine(palette{}, o, c.res, c.err)
		if strings.ContainsAny(line, "\u009b\u202e") {
			t.Errorf("%s: verdict %q carries a control or bidi character", name, line)
		}
	}
}
