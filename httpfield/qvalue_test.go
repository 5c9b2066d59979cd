package httpfield

import (
	"fmt"
	"math"
	"testing"
)

func TestParseQValue(t *testing.T) {
	good := map[string]float64{"0": 0, "0.": 0, "0.5": 0.5, "0.001": 0.001, "0.999": 0.999, "1": 1, "1.": 1, "1.000": 1}
	for in, want := range good {
		if q, ok := ParseQValue(in); !ok || q != want {
			t.Errorf("ParseQValue(%q) = %v, %v; want %v", in, q, ok, want)
		}
	}
	for _, in := range []string{"", "1.001", "2", "0.0001", "-0", "+1", ".5", "NaN", "1e0", "0x1", "0.5 ", "01"} {
		if q, ok := ParseQValue(in); ok {
			t.Errorf("ParseQValue(%q) = %v, want malformed", in, q)
		}
	}
}

func TestQValue(t *testing.T) {
	for params, want := range map[string]float64{"": 1, "x=1": 1, "q=0.5": 0.5, " Q = 0.25 ;x": 0.25, "level=1;q=0": 0} {
		if q, ok := QValue(params); !ok || q != want {
			t.Errorf("QValue(%q) = %v, %v; want %v", params, q, ok, want)
		}
	}
	for _, params := range []string{"q=", "q=2", "q=NaN", "x=1;q=0.0001", "q"} {
		if q, ok := QValue(params); ok {
			t.Errorf("QValue(%q) = %v, want malformed", params, q)
		}
	}
}

// FuzzQValue checks that an accepted weight is a qvalue (0 to 1, three
// decimals at most) and that it formats back to parameters giving it again.
func FuzzQValue(f *testing.F) {
	for _, s := range []string{"q=0.5", "Q=1.000", "x=1;q=0", "q=0.0001", "q=NaN", "q=1e0", ";;q=1.;q=0."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		q, ok := QValue(params)
		if !ok {
			return
		}
		if q < 0 || q > 1 || q*1000 != math.Round(q*1000) {
			t.Fatalf("QValue(%q) = %v", params, q)
		}
		if again, ok := QValue(fmt.Sprintf("q=%.3f", q)); !ok || again != q {
			t.Fatalf("QValue(%q) = %v formats to q=%.3f, which gives %v, %v", params, q, q, again, ok)
		}
	})
}
