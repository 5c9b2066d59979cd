package check

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		status int
		value  string
		wait   time.Duration
		ok     bool
	}{
		{503, "0", 0, true},
		{503, "5", 5 * time.Second, true},
		{429, "1", time.Second, true},
		{503, "6", 6 * time.Second, false}, // too long to sit out
		{503, "99999999999", 0, false},     // beyond uint32
		{503, "", 0, false},                // none named
		{503, "-1", 0, false},              // not delay-seconds
		{503, "1.5", 0, false},             // not delay-seconds
		{503, "soon", 0, false},            // neither form
		{500, "1", 0, false},               // not a refusal that asks for a retry
		{200, "1", 0, false},               // not a refusal at all
		{503, "Mon, 23 Nov 2026 12:00:03 GMT", 3 * time.Second, true},
		{503, "Mon, 23 Nov 2026 11:00:00 GMT", 0, true}, // already past: now
		{503, "Mon, 23 Nov 2026 12:01:00 GMT", time.Minute, false},
	} {
		r := &response{status: c.status, header: http.Header{}}
		if c.value != "" {
			r.header.Set("Retry-After", c.value)
		}
		wait, ok := retryAfter(r, now)
		if ok != c.ok || ok && wait != c.wait {
			t.Errorf("%d Retry-After %q = %v, %v; want %v, %v", c.status, c.value, wait, ok, c.wait, c.ok)
		}
	}
}
