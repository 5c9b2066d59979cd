package httpfield

import (
	"strings"
	"testing"
)

var parseContentRangeTests = []struct {
	in   string
	want ContentRange
	ok   bool
}{
	{"bytes 10-18/19", ContentRange{First: 10, Last: 18, Total: 19}, true},
	{"bytes 0-0/1", ContentRange{First: 0, Last: 0, Total: 1}, true},
	{"bytes 5-9/*", ContentRange{First: 5, Last: 9, Total: -1}, true},
	{"bytes */100", ContentRange{First: -1, Last: -1, Total: 100}, true},
	{"bytes 0-999999999999999998/999999999999999999", ContentRange{First: 0, Last: 999999999999999998, Total: 999999999999999999}, true},
	{"bytes 007-8/9", ContentRange{First: 7, Last: 8, Total: 9}, true},
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
	{"bytes +6-11/19", ContentRange{}, false}, // hdig check accepted it: digits only (RFC 9110 §14.4)
	{"bytes 6-11/+19", ContentRange{}, false},
	{" bytes 6-11/19", ContentRange{}, false},
	{"bytes 6-11/19 ", ContentRange{}, false},
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

// FuzzContentRange checks that any accepted value is consistent and that
// its String parses back to it.
func FuzzContentRange(f *testing.F) {
	for _, tt := range parseContentRangeTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseContentRange(s)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || len(msg) > 256 {
				t.Fatalf("ParseContentRange(%q): error %q is not one short line", s, msg)
			}
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
