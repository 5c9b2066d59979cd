package httpfield

import (
	"slices"
	"strings"
	"testing"
)

func TestContentCodings(t *testing.T) {
	tests := []struct {
		lines []string
		want  []string
	}{
		{nil, nil},
		{[]string{""}, nil},
		{[]string{"identity"}, nil},
		{[]string{"Identity"}, nil},
		{[]string{"gzip"}, []string{"gzip"}},
		{[]string{"GZip , br"}, []string{"gzip", "br"}},
		{[]string{"gzip", "br"}, []string{"gzip", "br"}},
		{[]string{"identity, zstd,"}, []string{"zstd"}},
	}
	for _, tt := range tests {
		if got := ContentCodings(tt.lines); !slices.Equal(got, tt.want) {
			t.Errorf("ContentCodings(%q) = %q, want %q", tt.lines, got, tt.want)
		}
		if got, want := ContentCoding(tt.lines), strings.Join(tt.want, ", "); got != want {
			t.Errorf("ContentCoding(%q) = %q, want %q", tt.lines, got, want)
		}
	}
}
