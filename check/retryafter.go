package check

import (
	"context"
	"net/http"
	"strconv"
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
// short Retry-After. It returns the last response and the retries made.
func (a *audit) doRetryAfter(ctx context.Context, q request) (*response, int, error) {
	for retries := 0; ; retries++ {
		r, err := a.do(ctx, q)
		if err != nil || retries == maxRetries {
			return r, retries, err
		}
		wait, ok := retryAfter(r, time.Now())
		if !ok {
			return r, retries, nil
		}
		r.close()
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, retries, ctx.Err()
		}
	}
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
