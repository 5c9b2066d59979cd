package fetch

import (
	"testing"

	"github.com/hdig/hdig/httpfield"
)

func TestWithin(t *testing.T) {
	rs, _ := httpfield.ParseRanges("0-9,-5,90-")
	for _, tt := range []struct {
		first, last int64
		want        bool
	}{{0, 9, true}, {2, 5, true}, {0, 10, false}, {88, 99, false}, {90, 99, true}, {95, 99, true}, {50, 50, false}} {
		if got := within(rs, tt.first, tt.last, 100); got != tt.want {
			t.Errorf("within(%d-%d) = %v, want %v", tt.first, tt.last, got, tt.want)
		}
	}
}
