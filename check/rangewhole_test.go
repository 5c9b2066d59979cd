package check

import (
	"net/http"
	"testing"
)

// An origin that advertises Accept-Ranges: bytes but answers a Range
// request with 200 and the whole body only warned range.partial; the
// digests of that 200 were never looked at, so wrong ones passed.
func TestRangeAnsweredWith200DigestsChecked(t *testing.T) {
	wrong := "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"
	for _, c := range []struct {
		name, field string
		id          string
		want        Status
	}{
		{"wrong Content-Digest", "Content-Digest", "range.content-digest", Fail},
		{"wrong Repr-Digest", "Repr-Digest", "range.repr-digest", Fail},
		{"honest", "", "range.repr-digest", Pass},
	} {
		url := newOrigin(t, func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Range") == "" {
					next.ServeHTTP(w, r)
					return
				}
				r.Header.Del("Range")
				e := &etagger{ResponseWriter: w}
				if c.field != "" {
					e.set = map[string]string{c.field: wrong}
				}
				next.ServeHTTP(e, r)
			})
		})
		r := auditURL(t, url+"/doc.txt", Options{})
		if got := result(r, c.id); got.Status != c.want {
			t.Errorf("%s: %s %s %q, want %s", c.name, c.id, got.Status, got.Message, c.want)
		}
		if got := result(r, "range.partial"); got.Status != Warn {
			t.Errorf("%s: range.partial %s, want warn (200 for a Range)", c.name, got.Status)
		}
	}
}
