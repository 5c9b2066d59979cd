package httpfield

import (
	"fmt"
	"strconv"
	"strings"
)

// ContentRange is a parsed Content-Range field (RFC 9110 §14.4): bytes
// First through Last (inclusive) of a representation of Total bytes. Total
// is -1 when the origin sent "*". An unsatisfied range ("bytes */N") has
// First and Last -1.
type ContentRange struct {
	First, Last, Total int64
}

// Len is the number of bytes the range covers.
func (c ContentRange) Len() int64 {
	if c.First < 0 {
		return 0
	}
	return c.Last - c.First + 1
}

func (c ContentRange) String() string {
	total := "*"
	if c.Total >= 0 {
		total = strconv.FormatInt(c.Total, 10)
	}
	if c.First < 0 {
		return "bytes */" + total
	}
	return fmt.Sprintf("bytes %d-%d/%s", c.First, c.Last, total)
}

// maxContentRangeLen bounds the field value: two 19-digit positions, a
// length and the unit fit in well under it.
const maxContentRangeLen = 80

// ParseContentRange parses a Content-Range field value strictly: the unit
// must be "bytes", positions are decimal digits without signs or spaces,
// First <= Last, and Last < Total when the total is known.
func ParseContentRange(s string) (ContentRange, error) {
	bad := func(why string) (ContentRange, error) {
		return ContentRange{}, fmt.Errorf("Content-Range %q: %s", Clip(s), why)
	}
	if len(s) > maxContentRangeLen {
		return bad("too long")
	}
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return bad(`want unit "bytes"`)
	}
	rng, total, ok := strings.Cut(rest, "/")
	if !ok {
		return bad(`want "/" before the complete length`)
	}
	c := ContentRange{First: -1, Last: -1, Total: -1}
	if total != "*" {
		n, err := parsePos(total)
		if err != nil {
			return bad("complete length: " + err.Error())
		}
		c.Total = n
	}
	if rng == "*" {
		if c.Total < 0 {
			return bad(`"*/*" says nothing`)
		}
		return c, nil
	}
	first, last, ok := strings.Cut(rng, "-")
	if !ok {
		return bad(`want "first-last"`)
	}
	var err error
	if c.First, err = parsePos(first); err != nil {
		return bad("first position: " + err.Error())
	}
	if c.Last, err = parsePos(last); err != nil {
		return bad("last position: " + err.Error())
	}
	switch {
	case c.First > c.Last:
		return bad(fmt.Sprintf("first %d after last %d", c.First, c.Last))
	case c.Total >= 0 && c.Last >= c.Total:
		return bad(fmt.Sprintf("last %d beyond the length %d", c.Last, c.Total))
	}
	return c, nil
}

// parsePos parses a non-negative decimal of at most 18 digits (no overflow
// when lengths are added).
func parsePos(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	if len(s) > 18 {
		return 0, fmt.Errorf("%d digits, at most 18", len(s))
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%q is not a digit", s[i])
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n, nil
}

// Clip shortens a hostile value for a one-line error message, where %q
// may make each byte four.
func Clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}
