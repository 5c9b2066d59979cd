package httpfield

import (
	"strings"
	"testing"
)

var parseRangesTests = []struct {
	in   string
	want string // FormatRanges, or "" for an error
}{
	{"0-99", "bytes=0-99"},
	{"100-", "bytes=100-"},
	{"-500", "bytes=-500"},
	{"0-0, 10-20,-5", "bytes=0-0,10-20,-5"},
	{"bytes=1-2", "bytes=1-2"},
	{"5-1", ""},
	{"-0", ""},
	{"abc", ""},
	{"1-2-3", ""},
	{"+1-2", ""},
	{"1-+2", ""},
	{"", ""},
	{"-", ""},
	{"0-999999999999999999", "bytes=0-999999999999999999"},
	{"0-9999999999999999999", ""},
}

func TestParseRanges(t *testing.T) {
	for _, tt := range parseRangesTests {
		rs, err := ParseRanges(tt.in)
		got := ""
		if err == nil {
			got = FormatRanges(rs)
		}
		if got != tt.want {
			t.Errorf("ParseRanges(%q) = %q (%v), want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	rs, _ := ParseRanges("0-9,-5,90-")
	for _, tt := range []struct {
		r           ByteRange
		total       int64
		first, last int64
		ok          bool
	}{
		{rs[0], 100, 0, 9, true},
		{rs[0], 5, 0, 4, true},
		{rs[1], 100, 95, 99, true},
		{rs[1], 3, 0, 2, true},
		{rs[2], 100, 90, 99, true},
		{rs[2], 90, 0, 0, false},
		{rs[1], 0, 0, 0, false},
	} {
		a, b, ok := tt.r.Resolve(tt.total)
		if ok != tt.ok || (ok && (a != tt.first || b != tt.last)) {
			t.Errorf("%v.Resolve(%d) = %d, %d, %v; want %d, %d, %v", tt.r, tt.total, a, b, ok, tt.first, tt.last, tt.ok)
		}
	}
}

// TestParseRangesBounds: the number of ranges and the text are bounded
// before anything is split or parsed.
func TestParseRangesBounds(t *testing.T) {
	many := strings.Repeat("0-1,", maxRanges) + "0-1"
	if _, err := ParseRanges(many); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("%d ranges: error %v, want at most 64", maxRanges+1, err)
	}
	if rs, err := ParseRanges(strings.Repeat("0-1,", maxRanges-1) + "0-1"); err != nil || len(rs) != maxRanges {
		t.Errorf("%d ranges: %d, %v", maxRanges, len(rs), err)
	}
	if _, err := ParseRanges(strings.Repeat(",", 1<<20)); err == nil || !strings.Contains(err.Error(), "at most 4096") {
		t.Errorf("1 MiB of commas: error %v, want a length bound", err)
	}
}

// FuzzParseRanges checks that accepted ranges respect the bounds and are
// consistent, that FormatRanges of them parses back to the same, and that
// errors are one short line.
func FuzzParseRanges(f *testing.F) {
	for _, tt := range parseRangesTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ParseRanges(s)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || len(msg) > 256 {
				t.Fatalf("ParseRanges(%q): error %q is not one short line", s, msg)
			}
			return
		}
		if len(rs) == 0 || len(rs) > maxRanges {
			t.Fatalf("ParseRanges(%q): %d ranges", s, len(rs))
		}
		for _, r := range rs {
			suffix := r.Suffix > 0 && r.First == 0 && r.Last == 0
			span := r.Suffix == 0 && r.First >= 0 && (r.Last == -1 || r.Last >= r.First)
			if !suffix && !span {
				t.Fatalf("ParseRanges(%q): inconsistent %+v", s, r)
			}
		}
		text := FormatRanges(rs)
		again, err := ParseRanges(text)
		if err != nil || FormatRanges(again) != text || len(again) != len(rs) {
			t.Fatalf("ParseRanges(%q) = %s does not parse back: %v, %v", s, text, again, err)
		}
		for i := range rs {
			if again[i] != rs[i] {
				t.Fatalf("ParseRanges(%q): range %d is %+v, parses back as %+v", s, i, rs[i], again[i])
			}
		}
	})
}
