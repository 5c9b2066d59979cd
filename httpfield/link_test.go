package httpfield

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseLinks(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []Link
	}{
		{[]string{`<http://m1/f>; rel=duplicate; pri=1, <http://m2/f>; rel="duplicate"`}, []Link{
			{Target: "http://m1/f", Rel: []string{"duplicate"}, Params: map[string]string{"pri": "1"}},
			{Target: "http://m2/f", Rel: []string{"duplicate"}, Params: map[string]string{}}}},
		{[]string{`<f.zsync>; REL="Alternate DescribedBy"; type="application/x-zsync"`}, []Link{
			{Target: "f.zsync", Rel: []string{"alternate", "describedby"}, Params: map[string]string{"type": "application/x-zsync"}}}},
		{[]string{`<a,b;c>; title="x;\"y\",z"; rel=next; rel=prev`}, []Link{
			{Target: "a,b;c", Rel: []string{"next"}, Params: map[string]string{"title": `x;"y",z`}}}},
		{[]string{`f; rel=duplicate`, `<>; rel=duplicate`, `<x`, `<y> junk; rel=duplicate`}, nil},
		{nil, nil},
	} {
		if got := ParseLinks(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseLinks(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestLinksWithRel(t *testing.T) {
	v := []string{`<a>; rel=duplicate, <b>; rel=next, <c>; rel="duplicate"`, `<d>; rel=duplicate`}
	if got := LinksWithRel(v, "duplicate", 2); !reflect.DeepEqual(got, []string{"a", "c"}) {
		t.Errorf("LinksWithRel(cap 2) = %q, want [a c]", got)
	}
	if got := LinksWithRel(v, "duplicate", 0); got != nil {
		t.Errorf("LinksWithRel(cap 0) = %q, want none", got)
	}
}

// TestParseLinksBounds: lines beyond 64, a line over 16 KiB and links
// beyond 256 are not read.
func TestParseLinksBounds(t *testing.T) {
	var many []string
	for i := range 100 {
		many = append(many, fmt.Sprintf("<%d>; rel=duplicate", i))
	}
	if got := len(ParseLinks(many)); got != maxLinkValues {
		t.Errorf("%d lines: %d links, want %d", len(many), got, maxLinkValues)
	}
	if got := ParseLinks([]string{"<a>; rel=x; t=" + strings.Repeat("y", maxLinkLen)}); got != nil {
		t.Errorf("a line over %d bytes: %d links, want none", maxLinkLen, len(got))
	}
	if got := len(ParseLinks([]string{strings.Repeat("<a>, ", 1000)})); got != maxLinks {
		t.Errorf("1000 links in a line: %d, want %d", got, maxLinks)
	}
}

// FuzzParseLinks: never panics, stays within its bounds, and every target
// appears in the input. Seeds in testdata/fuzz/FuzzParseLinks.
func FuzzParseLinks(f *testing.F) {
	f.Add(`<http://m/f>; rel=duplicate; pri=1, <f.zsync>; rel="describedby"; type="application/x-zsync"`)
	f.Add(`<a>; rel="x\"y,z", <b>; title="a;b"`)
	f.Fuzz(func(t *testing.T, v string) {
		links := ParseLinks([]string{v})
		if len(links) > maxLinks {
			t.Fatalf("%d links, want at most %d", len(links), maxLinks)
		}
		for _, l := range links {
			if l.Target == "" || !strings.Contains(v, l.Target) {
				t.Fatalf("target %q not in the input %q", l.Target, v)
			}
		}
	})
}
