package check

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// drip answers the requests match selects with a body that never ends: a
// byte every 10 ms, quick enough for any stall timeout.
func drip(match func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Length", "1000000")
			w.WriteHeader(http.StatusOK)
			for {
				select {
				case <-r.Context().Done():
					return
				case <-time.After(10 * time.Millisecond):
				}
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		})
	}
}

// An origin that drips one response holds the gate only until --max-time:
// the request under way breaks off and names it, and what had no time to
// be checked fails rather than being skipped.
func TestMaxTimeCutsAuditShort(t *testing.T) {
	o := Options{Timeout: 5 * time.Second, MaxTime: 700 * time.Millisecond}
	ranged := newOrigin(t, drip(func(r *http.Request) bool { return r.Header.Get("Range") != "" }))
	r := auditURL(t, ranged+"/doc.txt", o)
	if r.Unreachable || result(r, "http.status").Status != Pass || result(r, "repr-digest.match").Status != Pass {
		t.Errorf("the checks before the drip did not pass:\n%s", dump(r))
	}
	if c := result(r, "range.partial"); c.Status != Fail || !strings.Contains(c.Message, "--max-time 700ms ran out") {
		t.Errorf("range.partial = %s %q, want a failure naming --max-time", c.Status, c.Message)
	}
	// Without --base-etag delta.226 is a skip; after the cut it fails.
	if c := result(r, "delta.226"); c.Status != Fail || !strings.Contains(c.Message, "--max-time") {
		t.Errorf("delta.226 = %s %q, want a failure naming --max-time", c.Status, c.Message)
	}

	first := newOrigin(t, drip(func(r *http.Request) bool { return r.Method == http.MethodGet }))
	r = auditURL(t, first+"/doc.txt", o)
	if c := result(r, "http.status"); c.Status != Fail || !strings.Contains(c.Message, "--max-time 700ms ran out") {
		t.Errorf("first GET cut short: http.status %s %q, want a failure naming --max-time", c.Status, c.Message)
	}
	if got := ids(r, Pass); len(got) > 0 {
		t.Errorf("passed with the first GET cut short: %v", got)
	}
}

// Within --max-time the report is the one without it.
func TestMaxTimeInTime(t *testing.T) {
	url := newOrigin(t, nil) + "/doc.txt"
	with := auditURL(t, url, Options{MaxTime: time.Hour})
	without := auditURL(t, url, Options{})
	for i := range with.Checks {
		if a, b := with.Checks[i], without.Checks[i]; a.Status != b.Status {
			t.Errorf("%s: %s with --max-time, %s without", a.ID, a.Status, b.Status)
		}
	}
}
