package fetch

import (
	"context"
	"io"
	"net/http"
	"time"
)

// rateLimited reads at most rate bytes per second on average (--limit-rate):
// after each read it waits until the bytes read so far are due.
type rateLimited struct {
	r     io.ReadCloser
	rate  int64
	start time.Time
	read  int64
	now   func() time.Time
	sleep func(time.Duration)
}

func limitRate(r io.ReadCloser, rate int64) *rateLimited {
	return &rateLimited{r: r, rate: rate, start: time.Now(), now: time.Now, sleep: time.Sleep}
}

func (l *rateLimited) Read(p []byte) (int, error) {
	if int64(len(p)) > l.rate {
		p = p[:max(l.rate, 1)] // a second's worth at most: the waits stay short
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	due := time.Duration(float64(l.read) / float64(l.rate) * float64(time.Second))
	if wait := due - l.now().Sub(l.start); wait > 0 {
		l.sleep(wait)
	}
	return n, err
}

func (l *rateLimited) Close() error { return l.r.Close() }

// redirectHookKey marks a context with a function that sees each redirect
// followed.
type redirectHookKey struct{}

// WithRedirectHook returns ctx with f, which sees every redirect response
// a request made with ctx follows and the number of hops so far in its
// chain (for -i, -D and -w's %{num_redirects}).
func WithRedirectHook(ctx context.Context, f func(resp *http.Response, hops int)) context.Context {
	return context.WithValue(ctx, redirectHookKey{}, f)
}

func redirectHook(ctx context.Context) func(*http.Response, int) {
	f, _ := ctx.Value(redirectHookKey{}).(func(*http.Response, int))
	return f
}
