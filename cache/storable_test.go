package cache

import (
	"net/http"
	"testing"
)

func TestStorable(t *testing.T) {
	tests := []struct {
		name string
		cc   []string // Cache-Control field lines
		want bool
	}{
		{"none", nil, true},
		{"public max-age", []string{"public, max-age=3600"}, true},
		{"private", []string{"private"}, true},
		{"no-cache", []string{"no-cache"}, true},
		{"max-age 0", []string{"max-age=0, must-revalidate"}, true},
		{"no-store", []string{"no-store"}, false},
		{"no-store upper case", []string{"No-Store"}, false},
		{"no-store among others", []string{"private, no-store, max-age=0"}, false},
		{"no-store and im (RFC 3229 example)", []string{"no-store, im, max-age=30"}, true},
		{"im in another field line", []string{"no-store", "im"}, true},
		{"im alone", []string{"im"}, true},
		{"retain", []string{"no-store, retain=3600"}, false},
		{"no-store inside a quoted argument", []string{`private="no-store, im"`}, true},
		{"im inside a quoted argument", []string{`no-store, private="x, im"`}, false},
		{"escaped quote", []string{`no-cache="a\", im", no-store`}, false},
		{"spaces and empty members", []string{" , no-store ,, "}, false},
		{"im-like name", []string{"no-store, imx"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.cc {
				h.Add("Cache-Control", v)
			}
			if got := Storable(h); got != tt.want {
				t.Errorf("Storable(%q) = %v, want %v", tt.cc, got, tt.want)
			}
		})
	}
}
