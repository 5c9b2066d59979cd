package cache

import (
	"net/http"
	"testing"
	"time"
)

// TestFreshness: RFC 9111 §4.2 for a private cache.
func TestFreshness(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	date := now.Format(http.TimeFormat)
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration // 0: not fresh
	}{
		{"max-age", http.Header{"Cache-Control": {"public, max-age=3600"}, "Date": {date}}, time.Hour},
		{"max-age quoted, first wins", http.Header{"Cache-Control": {`max-age="60"`, "max-age=9999"}}, time.Minute},
		{"max-age less Age", http.Header{"Cache-Control": {"max-age=3600"}, "Age": {"600"}, "Date": {date}}, 50 * time.Minute},
		{"max-age over Expires", http.Header{"Cache-Control": {"max-age=60"}, "Expires": {now.Add(time.Hour).Format(http.TimeFormat)}}, time.Minute},
		{"s-maxage ignored", http.Header{"Cache-Control": {"s-maxage=3600"}}, 0},
		{"Expires minus Date", http.Header{"Expires": {now.Add(2 * time.Hour).Format(http.TimeFormat)}, "Date": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 2 * time.Hour}, // lifetime 3 h, age 1 h
		{"Expires invalid", http.Header{"Expires": {"0"}, "Last-Modified": {now.Add(-100 * time.Hour).Format(http.TimeFormat)}}, 0},
		{"heuristic", http.Header{"Last-Modified": {now.Add(-100 * time.Hour).Format(http.TimeFormat)}, "Date": {date}}, 10 * time.Hour},
		{"nothing", http.Header{"Date": {date}}, 0},
		{"no-store", http.Header{"Cache-Control": {"max-age=3600, no-store"}}, 0},
		{"no-store beside im (RFC 3229 §10.8.2)", http.Header{"Cache-Control": {"no-store, im, max-age=30"}}, 30 * time.Second},
		{"im alone gives no lifetime", http.Header{"Cache-Control": {"no-store, im"}, "Date": {date}}, 0},
		{"no-cache", http.Header{"Cache-Control": {"no-cache, max-age=3600"}}, 0},
		{"max-age=0", http.Header{"Cache-Control": {"max-age=0"}}, 0},
		{"bad max-age", http.Header{"Cache-Control": {"max-age=soon"}, "Expires": {now.Add(time.Hour).Format(http.TimeFormat)}}, 0},
	} {
		exp, ok := Freshness(tc.h, now)
		if tc.want == 0 && ok || tc.want != 0 && (!ok || exp.Sub(now) != tc.want) {
			t.Errorf("%s: got %v, %v; want fresh for %v (0: not fresh)", tc.name, exp.Sub(now), ok, tc.want)
		}
	}
}
