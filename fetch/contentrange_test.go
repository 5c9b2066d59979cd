package fetch

import (
	"testing"
)

var parseContentRangeTests = []struct {
	in   string
	want ContentRange
	ok   bool
}{
	{"bytes 10-18/19", ContentRange{10, 18, 19}, true},
	{"bytes 0-0/1", ContentRange{0, 0, 1}, true},
	{"bytes 5-9/*", ContentRange{5, 9, -1}, true},
	{"bytes */100", ContentRange{-1, -1, 100}, true},
	{"bytes 0-999999999999999998/999999999999999999", ContentRange{0, 999999999999999998, 999999999999999999}, true},
	{"bytes 007-8/9", ContentRange{7, 8, 9}, true},
	{"bytes */*", ContentRange{}, false},
	{"bytes 9-5/10", ContentRange{}, false},
	{"bytes 0-10/10", ContentRange{}, false},
	{"bytes -1-5/10", ContentRange{}, false},
	{"bytes 0-+5/10", ContentRange{}, false},
	{"bytes  0-5/10", ContentRange{}, false},
	{"items 0-5/10", ContentRange{}, false},
	{"bytes 0-5", ContentRange{}, false},
	{"bytes 0/10", ContentRange{}, false},
	{"bytes 0-5/1x", ContentRange{}, false},
	{"bytes 0-9999999999999999999/*", ContentRange{}, false},
	{"", ContentRange{}, false},
}

func TestParseContentRange(t *testing.T) {
	for _, tt := range parseContentRangeTests {
		got, err := ParseContentRange(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseContentRange(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if again, _ := ParseContentRange(got.String()); err == nil && again != got {
			t.Errorf("ParseContentRange(%q).String() = %q does not parse back", tt.in, got.String())
		}
	}
}

func TestParseRanges(t *testing.T) {
	tests := []struct {
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
		{"", ""},
		{"-", ""},
	}
	for _, tt := range tests {
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

func TestResolveAndWithin(t *testing.T) {
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
	for _, tt := range []struct {
		first, last int64
		want        bool
	}{{0, 9, true}, {2, 5, true}, {0, 10, false}, {88, 99, false}, {90, 99, true}, {95, 99, true}, {50, 50, false}} {
		if got := within(rs, tt.first, tt.last, 100); got != tt.want {
			t.Errorf("within(%d-%d) = %v, want %v", tt.first, tt.last, got, tt.want)
		}
	}
}

// FuzzContentRange checks that any accepted value is consistent and that
// its String parses back to it.
func FuzzContentRange(f *testing.F) {
	for _, tt := range parseContentRangeTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseContentRange(s)
		if err != nil {
			return
		}
		if c.First >= 0 && (c.Last < c.First || (c.Total >= 0 && c.Last >= c.Total) || c.Len() <= 0) {
			t.Fatalf("ParseContentRange(%q) = %+v: inconsistent", s, c)
		}
		if again, err := ParseContentRange(c.String()); err != nil || again != c {
			t.Fatalf("ParseContentRange(%q).String() = %q parses to %+v, %v", s, c.String(), again, err)
		}
	})
}
