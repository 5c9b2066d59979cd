package cmd

import (
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// Parsing of hdig get's flag values: --accept, -r, -C's argument, --retry and --timeout.

func parseAccept(s string) (verify.Policy, error) {
	algs, err := verify.ParseList(s)
	if err != nil {
		return verify.Policy{}, usageErrorf("--accept: %v", err)
	}
	p := verify.Policy{}
	for _, a := range algs {
		p.Accept = append(p.Accept, a.Key)
	}
	return p, nil
}

// rangeFlags checks -r, --parallel and -C and parses -r.
func (o *getOptions) rangeFlags() ([]fetch.ByteRange, error) {
	switch {
	case o.Parallel < 0 || o.Parallel > fetch.MaxParallel:
		return nil, usageErrorf("--parallel %d: want 1 to %d (0: chosen from the size)", o.Parallel, fetch.MaxParallel)
	case o.Parallel > 1 && o.Output == "" && o.NoBuffer:
		return nil, usageErrorf("--parallel needs -o FILE or stdout held back: -N streams one response as it arrives")
	case o.Continue && o.Output == "":
		return nil, usageErrorf("-C resumes FILE.hdig-part, so it needs -o FILE")
	case o.Continue && (o.ranged() || o.Compressed || o.Head || o.Method != "" || len(o.Data) > 0 || o.DataBinary != "" || o.UploadFile != ""):
		return nil, usageErrorf("-C resumes a plain GET; it cannot be combined with -r (or a Range header), --compressed, -I, -X or a request body")
	case !o.ranged():
		return nil, nil
	case o.Compressed:
		return nil, usageErrorf("%s cannot be combined with --compressed: a range of an encoded body does not decode", o.rangeName())
	case o.Parallel > 1:
		return nil, usageErrorf("%s and --parallel cannot be combined", o.rangeName())
	case o.Range == "":
		return nil, nil // the header's ranges: headerRanges
	}
	ranges, err := httpfield.ParseRanges(o.Range)
	if err != nil {
		return nil, usageErrorf("-r: %v", err)
	}
	return ranges, nil
}

// ranged says -r or an -H Range field asks for part of the file, the
// field in any unit (fetch.Request.Partial: its first value, not empty).
// Every refusal and choice made for -r asks it (rangeFlags, checkZsyncFlags,
// preferZsync), so a range spelt as a header is treated as -r is.
func (o *getOptions) ranged() bool {
	for _, h := range o.Headers {
		if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Range") {
			return o.Range != "" || strings.TrimSpace(v) != ""
		}
	}
	return o.Range != ""
}

// rangeName names what asks for ranges in a usage error: -r, or a Range
// header (ranged).
func (o *getOptions) rangeName() string {
	if o.Range == "" {
		return "a Range header"
	}
	return "-r"
}

// headerRanges are the byte ranges an -H Range field asks for (it wins
// over -r, as curl sends it instead); another unit than bytes, or a value
// that does not parse, is the user's own business: sent, not read.
func headerRanges(v string) ([]fetch.ByteRange, bool) {
	v = strings.TrimSpace(v)
	if len(v) < len("bytes=") || !strings.EqualFold(v[:len("bytes=")], "bytes=") {
		return nil, false
	}
	rs, err := httpfield.ParseRanges(v[len("bytes="):])
	return rs, err == nil
}

// numbers checks --retry and --timeout: --timeout bounds connecting and
// each stall, so 0 (curl's "no limit" for --max-time) is refused rather
// than guessed at.
func (o *getOptions) numbers() error {
	if o.Retry < 0 {
		return usageErrorf("--retry %d: want 0 or more", o.Retry)
	}
	if o.Timeout <= 0 {
		return usageErrorf("--timeout %v: want a positive duration, e.g. 30s", o.Timeout)
	}
	return nil
}

// continueArgs drops the "-" of curl's `-C -` (resume at the part's end,
// the only offset hdig supports) from the arguments.
func continueArgs(o *getOptions, args []string) []string {
	if !o.Continue || len(args) < 2 {
		return args
	}
	for i, a := range args {
		if a == "-" {
			return append(append([]string{}, args[:i]...), args[i+1:]...)
		}
	}
	return args
}
