package httpfield

import (
	"fmt"
	"strings"
)

// ByteRange is one range of -r: bytes First through Last; Last -1 means to
// the end ("START-"); Suffix > 0 means the last Suffix bytes ("-SUFFIX").
type ByteRange struct {
	First, Last int64
	Suffix      int64
}

// maxRanges bounds the ranges of one -r: more would only let a server
// answer with a huge multipart body. maxRangesLen bounds the text: 64
// ranges of two 18-digit positions, with spaces, fit in it.
const (
	maxRanges    = 64
	maxRangesLen = 4096
)

// ParseRanges parses -r: "START-END", "START-" or "-SUFFIX", several
// separated by commas (an optional "bytes=" prefix is accepted).
func ParseRanges(s string) ([]ByteRange, error) {
	if len(s) > maxRangesLen {
		return nil, fmt.Errorf("%d bytes of ranges, at most %d", len(s), maxRangesLen)
	}
	s = strings.TrimPrefix(strings.TrimSpace(s), "bytes=")
	if n := strings.Count(s, ",") + 1; n > maxRanges {
		return nil, fmt.Errorf("%d ranges, at most %d", n, maxRanges)
	}
	parts := strings.Split(s, ",")
	var out []ByteRange
	for _, p := range parts {
		p = strings.TrimSpace(p)
		first, last, ok := strings.Cut(p, "-")
		if !ok {
			return nil, fmt.Errorf("range %q: want START-END, START- or -SUFFIX", Clip(p))
		}
		var r ByteRange
		var err error
		switch {
		case first == "":
			if r.Suffix, err = parsePos(last); err == nil && r.Suffix == 0 {
				err = fmt.Errorf("an empty suffix selects nothing")
			}
		default:
			r.Last = -1
			if r.First, err = parsePos(first); err == nil && last != "" {
				if r.Last, err = parsePos(last); err == nil && r.Last < r.First {
					err = fmt.Errorf("end %d before start %d", r.Last, r.First)
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("range %q: %v", Clip(p), err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (r ByteRange) String() string {
	switch {
	case r.Suffix > 0:
		return fmt.Sprintf("-%d", r.Suffix)
	case r.Last < 0:
		return fmt.Sprintf("%d-", r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// FormatRanges is the Range field value for rs, e.g. "bytes=0-99,-10".
func FormatRanges(rs []ByteRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return "bytes=" + strings.Join(parts, ",")
}

// Resolve returns the bytes r selects in a representation of total bytes
// (RFC 9110 §14.1.2), or ok false when it selects none.
func (r ByteRange) Resolve(total int64) (first, last int64, ok bool) {
	if r.Suffix > 0 {
		if total == 0 {
			return 0, 0, false
		}
		return max(total-r.Suffix, 0), total - 1, true
	}
	if r.First >= total {
		return 0, 0, false
	}
	last = r.Last
	if last < 0 || last >= total {
		last = total - 1
	}
	return r.First, last, true
}

// MaxCoalescedGap bounds the bytes between two ranges a server may send
// coalesced in one part: RFC 9110 §14.6 allows a gap "smaller than the
// overhead of sending multiple parts" (a delimiter and a part's header
// fields, some 100 bytes). A larger gap carries bytes nobody asked for.
// The client (hdig get -r) and the audit (range.multipart) both hold
// answers to it.
const MaxCoalescedGap = 1024
