package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestMayTrail pins the one rule for trailers (mayTrail): none over
// HTTP/1.0; a field that would otherwise be omitted may trail for any
// HTTP/1.1 or HTTP/2 client; one moved out of the header only for a
// client that said TE: trailers.
func TestMayTrail(t *testing.T) {
	for _, c := range []struct {
		proto      string
		te         string
		fromHeader bool
		want       bool
	}{
		{"HTTP/1.0", "trailers", false, false},
		{"HTTP/1.0", "trailers", true, false},
		{"HTTP/1.1", "", false, true},
		{"HTTP/1.1", "", true, false},
		{"HTTP/1.1", "gzip, Trailers", true, true},
		{"HTTP/2.0", "trailers", true, true},
		{"HTTP/2.0", "", false, true},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Proto = c.proto
		r.ProtoMajor, r.ProtoMinor, _ = http.ParseHTTPVersion(c.proto)
		if c.te != "" {
			r.Header.Set("TE", c.te)
		}
		if got := mayTrail(r, c.fromHeader); got != c.want {
			t.Errorf("%s TE %q fromHeader %v: %v, want %v", c.proto, c.te, c.fromHeader, got, c.want)
		}
	}
}
