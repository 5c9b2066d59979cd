package patch

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParseAIM(t *testing.T) {
	got := ParseAIM([]string{"vcdiff, gdiff;q=0.3", "diffe;q=bad, identity;q=0, GZip"})
	want := []Manipulation{{"vcdiff", 1, 0}, {"gdiff", 0.3, 1}, {"identity", 0, 2}, {"gzip", 1, 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseAIM = %v, want %v", got, want)
	}
	if acc := Acceptable(got); !reflect.DeepEqual(acc, []string{"vcdiff", "gdiff", "gzip"}) {
		t.Errorf("Acceptable = %q", acc)
	}
}

// TestParseAIMQZero: the client read "vcdiff;q=0.0" (and "Q=0", "q=0;x=1")
// as acceptable, the server as refused; q=0 in any spelling refuses.
func TestParseAIMQZero(t *testing.T) {
	for _, v := range []string{"vcdiff;q=0", "vcdiff;q=0.0", "vcdiff; Q=0.000", "vcdiff;q=0;x=1", "vcdiff ; q = 0."} {
		if acc := Acceptable(ParseAIM([]string{v})); len(acc) != 0 {
			t.Errorf("Acceptable(%q) = %q, want none", v, acc)
		}
	}
}

func TestParseAIMBounds(t *testing.T) {
	got := ParseAIM([]string{strings.Repeat("gzip, ", 10*MaxAIM)})
	if len(got) != MaxAIM {
		t.Errorf("%d members read, want the first %d", len(got), MaxAIM)
	}
	if _, err := ParseIM([]string{"vcdiff" + strings.Repeat(", gzip", MaxIM)}); err == nil {
		t.Errorf("IM of %d manipulations: no error", MaxIM+1)
	}
	if ims, err := ParseIM([]string{"VCDIFF;x=1, gzip", "deflate"}); err != nil || !reflect.DeepEqual(ims, []string{"vcdiff", "gzip", "deflate"}) {
		t.Errorf("ParseIM = %q, %v", ims, err)
	}
}

// FuzzParseAIM checks the bound and the members' form, and that the
// members formatted back into a field parse to the same.
func FuzzParseAIM(f *testing.F) {
	for _, s := range []string{"vcdiff, gdiff;q=0.8, diffe;q=0.5", "vcdiff;q=0", "identity;q=0, gzip", "diffe;q=bad", ";;,,", "a;q=1.000;q=0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		aim := ParseAIM([]string{s})
		if len(aim) > MaxAIM {
			t.Fatalf("%d members, at most %d", len(aim), MaxAIM)
		}
		parts := make([]string, len(aim))
		for i, m := range aim {
			if m.Name == "" || m.Name != strings.ToLower(m.Name) || strings.ContainsAny(m.Name, ",;") || m.Pos != i {
				t.Fatalf("ParseAIM(%q): member %d is %+v", s, i, m)
			}
			if m.Q < 0 || m.Q > 1 || m.Q*1000 != math.Round(m.Q*1000) {
				t.Fatalf("ParseAIM(%q): qvalue %v", s, m.Q)
			}
			parts[i] = fmt.Sprintf("%s;q=%.3f", m.Name, m.Q)
		}
		again := ParseAIM([]string{strings.Join(parts, ", ")})
		if len(aim) > 0 && !reflect.DeepEqual(again, aim) {
			t.Fatalf("ParseAIM(%q) = %v parses back as %v", s, aim, again)
		}
	})
}

// FuzzParseIM checks the bound and the names' form, and that the names
// joined into a field parse to the same.
func FuzzParseIM(f *testing.F) {
	for _, s := range []string{"vcdiff", "diffe, gzip", "VCDIFF;x=1", ", ,", "vcdiff, gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ims, err := ParseIM([]string{s})
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("ParseIM(%q): error %q is not one line", s, err)
			}
			return
		}
		if len(ims) > MaxIM {
			t.Fatalf("%d names, at most %d", len(ims), MaxIM)
		}
		for _, n := range ims {
			if n == "" || n != strings.ToLower(n) || strings.ContainsAny(n, ",;") {
				t.Fatalf("ParseIM(%q): name %q", s, n)
			}
		}
		again, err := ParseIM([]string{strings.Join(ims, ", ")})
		if err != nil || (len(ims) > 0 && !reflect.DeepEqual(again, ims)) {
			t.Fatalf("ParseIM(%q) = %q parses back as %q, %v", s, ims, again, err)
		}
	})
}
