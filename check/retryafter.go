package check

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retries after a 503 or 429 that carries Retry-After (RFC 9110 §10.2.3):
// at most maxRetries, each after the time asked for when it is no longer
// than maxRetryAfter. A longer wait, or none named, is not a transient
// refusal an audit should sit out: the response stands.
const (
	maxRetries    = 2
	maxRetryAfter = 5 * time.Second
)

// doRetryAfter is do, retried while the origin answers 503 or 429 with a
// short Retry-After. It returns the last response and the statuses of the
// refusals that were retried.
func (a *audit) doRetryAfter(ctx context.Context, q request) (*response, []int, error) {
	var refused []int
	for {
		r, err := a.do(ctx, q)
		if err != nil || len(refused) == maxRetries {
			return r, refused, err
		}
		wait, ok := retryAfter(r, time.Now())
		if !ok {
			return r, refused, nil
		}
		refused = append(refused, r.status)
		r.close()
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, refused, context.Cause(ctx)
		}
	}
}

// retryNote names the refusals retried, "" for none: " (after 1 retry:
// 503 with Retry-After)", " (after 2 retries: 503, 429 with Retry-After)".
func retryNote(refused []int) string {
	if len(refused) == 0 {
		return ""
	}
	codes := make([]string, len(refused))
	for i, c := range refused {
		codes[i] = strconv.Itoa(c)
	}
	n := "1 retry"
	if len(refused) > 1 {
		n = strconv.Itoa(len(refused)) + " retries"
	}
	return " (after " + n + ": " + strings.Join(codes, ", ") + " with Retry-After)"
}

// retryAfter is the wait a 503 or 429 response asks for, if it names one
// of at most maxRetryAfter: delay-seconds or an HTTP-date.
func retryAfter(r *response, now time.Time) (time.Duration, bool) {
	if r.status != http.StatusServiceUnavailable && r.status != http.StatusTooManyRequests {
		return 0, false
	}
	v := r.header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	var wait time.Duration
	if n, err := strconv.ParseUint(v, 10, 32); err == nil {
		wait = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		wait = max(t.Sub(now), 0)
	} else {
		return 0, false
	}
	return wait, wait <= maxRetryAfter
}
