package fetch

import (
	"net/http"

	"github.com/hdig/hdig/verify"
)

// Strategies, as the contract's JSON names them.
const (
	StrategyFull        = "full"
	StrategyRanges      = "ranges"
	StrategyDelta       = "delta"
	StrategyNotModified = "not-modified"
	StrategyHead        = "head"
)

// Result describes a finished fetch.
type Result struct {
	URL      string
	Status   int
	Header   http.Header
	Trailer  http.Header
	Verdict  verify.Verdict
	ETag     string
	Encoding string // Content-Encoding of the representation

	// Bytes is the size of the body written to the sink (decoded with
	// --compressed), Received the body bytes read off the network.
	Bytes    int64
	Received int64

	Strategy  string
	IM        []string
	DeltaBase string
	Pieces    int
	// Retries counts attempts made after the first.
	Retries int
}

// Outcome is the verdict's outcome; a failed transfer has none.
func (r *Result) Outcome() verify.Outcome { return r.Verdict.Outcome() }
