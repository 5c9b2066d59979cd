package httpfield

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseETags(t *testing.T) {
	got, err := ParseETags([]string{`"a", W/"b", *, "c,d"`, `"e", junk, W/*,`})
	want := []string{`"a"`, `W/"b"`, `*`, `"c,d"`, `"e"`}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseETags = %q, %v; want %q", got, err, want)
	}
	long := strings.Repeat(`"x", `, MaxETags)
	if tags, err := ParseETags([]string{long}); err != nil || len(tags) != MaxETags {
		t.Errorf("%d tags: %d, %v", MaxETags, len(tags), err)
	}
	if _, err := ParseETags([]string{long + `"y"`}); err == nil {
		t.Errorf("%d tags: no error", MaxETags+1)
	}
}

// FuzzParseETags checks that a parsed list respects MaxETags, holds only
// entity tags and "*", and parses back to itself once joined with commas.
func FuzzParseETags(f *testing.F) {
	for _, s := range []string{`"a", W/"b", *, "c,d"`, `W/"x"`, `*`, `"unterminated`, `junk, "ok"`, `W/W/"a"`, `""`} {
		f.Add(s, `"e"`)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		tags, err := ParseETags([]string{a, b})
		if err != nil {
			return
		}
		if len(tags) > MaxETags {
			t.Fatalf("%d tags, at most %d", len(tags), MaxETags)
		}
		for _, tag := range tags {
			opaque := strings.TrimPrefix(tag, "W/")
			if tag != "*" && (len(opaque) < 2 || opaque[0] != '"' || opaque[len(opaque)-1] != '"' || strings.Contains(opaque[1:len(opaque)-1], `"`)) {
				t.Fatalf("ParseETags(%q, %q): %q is not an entity tag", a, b, tag)
			}
		}
		again, err := ParseETags([]string{strings.Join(tags, ", ")})
		if err != nil || len(again) != len(tags) || (len(tags) > 0 && !reflect.DeepEqual(again, tags)) {
			t.Fatalf("ParseETags(%q, %q) = %q parses back as %q, %v", a, b, tags, again, err)
		}
	})
}
